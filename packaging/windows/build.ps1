# Windows build (STYLE 11): dist\xworkmate\ from packaging\xworkmate.spec
# (XWorkmate.exe windowed + xworkmate-cli.exe console), smoke-tested, then the
# Inno Setup installer dist\XWorkmate-<version>-setup.exe, installed silently
# into a temp folder, smoke-tested there and uninstalled.
#
#   powershell -ExecutionPolicy Bypass -File packaging\windows\build.ps1
#
# Needs: Python >= 3.11 (python.org, x64) with .venv created in the repo
# (py -3.11 -m venv .venv; .venv\Scripts\python -m pip install -e .[test,build])
# and Inno Setup 6 (ISCC.exe on PATH or in its default folder).
# Not run by the XWorkmate CI: it needs Windows.
$ErrorActionPreference = 'Stop'
Set-StrictMode -Version Latest

$Root = (Resolve-Path (Join-Path $PSScriptRoot '..\..')).Path
Set-Location $Root
$Py = Join-Path $Root '.venv\Scripts\python.exe'
$Bundle = Join-Path $Root 'dist\xworkmate'
$Clock = [Diagnostics.Stopwatch]::StartNew()

function Step($Text) { Write-Host "`n==> $Text" }
function Assert-Ok($What) { if ($LASTEXITCODE -ne 0) { throw "$What failed (exit code $LASTEXITCODE)" } }

if (-not (Test-Path $Py)) {
    throw "no .venv: py -3.11 -m venv .venv; .venv\Scripts\python -m pip install -e .[test,build]"
}
# No 2>$null here: Windows PowerShell 5.1 turns a redirected native stderr line into a terminating error.
& $Py -m PyInstaller --version | Out-Null
if ($LASTEXITCODE -ne 0) { & $Py -m pip install --quiet -e '.[build]'; Assert-Ok 'pip install .[build]' }
$Version = (& $Py -c 'import xworkmate; print(xworkmate.__version__)').Trim()

# Run the frozen console twin the way a person's machine would: no venv on
# PATH, no VIRTUAL_ENV/PYTHONPATH/PYTHONHOME, a throwaway XWORKMATE_HOME.
function Invoke-Clean([string]$Exe, [string[]]$Arguments, [hashtable]$Extra = @{}) {
    $saved = @{}
    $names = @('PATH', 'VIRTUAL_ENV', 'PYTHONPATH', 'PYTHONHOME', 'QT_QPA_PLATFORM', 'XWORKMATE_HOME') + $Extra.Keys
    foreach ($name in $names) { $saved[$name] = [Environment]::GetEnvironmentVariable($name, 'Process') }
    try {
        foreach ($name in 'VIRTUAL_ENV', 'PYTHONPATH', 'PYTHONHOME') { [Environment]::SetEnvironmentVariable($name, $null, 'Process') }
        [Environment]::SetEnvironmentVariable('PATH', "$env:SystemRoot\System32;$env:SystemRoot", 'Process')
        foreach ($name in $Extra.Keys) { [Environment]::SetEnvironmentVariable($name, $Extra[$name], 'Process') }
        $output = & $Exe @Arguments
        if ($LASTEXITCODE -ne 0) { throw "$Exe $Arguments exited with $LASTEXITCODE" }
        return ($output -join "`n").Trim()
    } finally {
        foreach ($name in $saved.Keys) { [Environment]::SetEnvironmentVariable($name, $saved[$name], 'Process') }
    }
}

function Test-Bundle([string]$Dir) {
    & $Py (Join-Path $Root 'packaging\check_bundle.py') $Dir --platform win32; Assert-Ok 'check_bundle.py'
    $cli = Join-Path $Dir 'xworkmate-cli.exe'  # XWorkmate.exe is windowed: it has no stdout to print ok to
    $dataHome = Join-Path ([IO.Path]::GetTempPath()) ("xworkmate-" + [Guid]::NewGuid())
    New-Item -ItemType Directory $dataHome | Out-Null
    $out = Invoke-Clean $cli @('--version')
    if ($out -ne "xworkmate $Version") { throw "--version printed '$out'" }
    $out = Invoke-Clean $cli @('gui', '--smoke-test') @{ QT_QPA_PLATFORM = 'offscreen'; XWORKMATE_HOME = $dataHome }
    if ($out -ne 'ok') { throw "gui --smoke-test printed '$out', expected 'ok'" }
    $line = Invoke-Clean $cli @('thread', 'new', '--json') @{ XWORKMATE_HOME = $dataHome } | ConvertFrom-Json
    $keys = (Invoke-Clean $cli @('thread', 'list', '--json') @{ XWORKMATE_HOME = $dataHome } | ConvertFrom-Json).session_key
    if ($keys -notcontains $line.session_key) { throw "thread list lacks $($line.session_key)" }
    Remove-Item -Recurse -Force $dataHome
    Write-Host "  ${Dir}: --version, gui --smoke-test, thread new/list ok"
}

Step 'PyInstaller: dist\xworkmate'
Remove-Item -Recurse -Force -ErrorAction SilentlyContinue $Bundle, (Join-Path $Root 'build\pyinstaller')
$env:QT_API = 'pyside6'
& $Py -m PyInstaller --noconfirm --log-level WARN --distpath dist --workpath build\pyinstaller packaging\xworkmate.spec
Assert-Ok 'PyInstaller'
Test-Bundle $Bundle

Step "Inno Setup: dist\XWorkmate-$Version-setup.exe"
$found = Get-Command ISCC.exe -ErrorAction SilentlyContinue  # (no ?. : Windows PowerShell 5.1 lacks it)
$iscc = if ($found) { $found.Source } else { Join-Path ${env:ProgramFiles(x86)} 'Inno Setup 6\ISCC.exe' }
if (-not (Test-Path $iscc)) { throw 'Inno Setup 6 not found: install it (winget install JRSoftware.InnoSetup)' }
& $iscc /Q "/DAppVersion=$Version" "/DSourceDir=$Bundle" "/DOutputDir=$(Join-Path $Root 'dist')" `
    "/DIconFile=$(Join-Path $Root 'build\icons\xworkmate.ico')" packaging\windows\xworkmate.iss
Assert-Ok 'ISCC'
$Setup = Join-Path $Root "dist\XWorkmate-$Version-setup.exe"

Step 'checking the installer (silent per-user install into a temp folder)'
$target = Join-Path ([IO.Path]::GetTempPath()) ("xworkmate-install-" + [Guid]::NewGuid())
$p = Start-Process $Setup -ArgumentList '/VERYSILENT', '/SUPPRESSMSGBOXES', '/NORESTART', '/CURRENTUSER', "/DIR=$target" -Wait -PassThru
if ($p.ExitCode -ne 0) { throw "installer exited with $($p.ExitCode)" }
Test-Bundle $target
$p = Start-Process (Join-Path $target 'unins000.exe') -ArgumentList '/VERYSILENT', '/SUPPRESSMSGBOXES', '/NORESTART' -Wait -PassThru
if ($p.ExitCode -ne 0) { throw "uninstaller exited with $($p.ExitCode)" }

Step 'done'
$size = { param($path) '{0:N0} MB' -f ((Get-ChildItem $path -Recurse -File | Measure-Object Length -Sum).Sum / 1MB) }
Write-Host "  bundle:    dist\xworkmate  $(& $size $Bundle)"
Write-Host "  installer: dist\$(Split-Path $Setup -Leaf)  $(& $size $Setup)"
Write-Host "  time:      $([int]$Clock.Elapsed.TotalSeconds)s"
