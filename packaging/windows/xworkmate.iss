; Inno Setup 6 script for XWorkmate (STYLE 11: the installer is a separate step
; after the PyInstaller one-folder build). packaging\windows\build.ps1 runs it as
;
;   ISCC.exe /DAppVersion=0.1.0 /DSourceDir=<repo>\dist\xworkmate /DOutputDir=<repo>\dist
;            /DIconFile=<repo>\build\icons\xworkmate.ico packaging\windows\xworkmate.iss
;
; Output: dist\XWorkmate-<version>-setup.exe. Installs per user by default (no
; admin prompt) into %LOCALAPPDATA%\Programs\XWorkmate; "Install for all users"
; is offered and goes to Program Files. Not run by the XWorkmate CI: it needs Windows.

#ifndef AppVersion
  #error Pass /DAppVersion=<xworkmate.__version__>
#endif
#ifndef SourceDir
  #define SourceDir "..\..\dist\xworkmate"
#endif
#ifndef OutputDir
  #define OutputDir "..\..\dist"
#endif
#ifndef IconFile
  #define IconFile "..\..\build\icons\xworkmate.ico"
#endif

[Setup]
; Keep AppId: it is how Windows recognises an upgrade of the same app.
AppId={{BA7271DA-2D3F-47AF-A137-E47F2411DA0B}
AppName=XWorkmate
AppVersion={#AppVersion}
AppVerName=XWorkmate {#AppVersion}
AppPublisher=XWorkmate
DefaultDirName={autopf}\XWorkmate
DefaultGroupName=XWorkmate
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog commandline
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir={#OutputDir}
OutputBaseFilename=XWorkmate-{#AppVersion}-setup
SetupIconFile={#IconFile}
UninstallDisplayIcon={app}\XWorkmate.exe
UninstallDisplayName=XWorkmate
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
CloseApplications=yes

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
; The whole one-folder bundle: XWorkmate.exe (windowed), xworkmate-cli.exe (console) and _internal\.
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[InstallDelete]
; An upgrade replaces the bundle whole, so files a newer build no longer ships do not linger.
Type: filesandordirs; Name: "{app}\_internal"

[Icons]
Name: "{autoprograms}\XWorkmate"; Filename: "{app}\XWorkmate.exe"
Name: "{autodesktop}\XWorkmate"; Filename: "{app}\XWorkmate.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\XWorkmate.exe"; Description: "{cm:LaunchProgram,XWorkmate}"; Flags: nowait postinstall skipifsilent
