<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>AcpAgentsSection</name>
    <message numerus="yes">
        <source>%n agent CLI(s) found on PATH; add the ones you want.</source>
        <translation>
            <numerusform>%n agent CLI found on PATH; add the ones you want.</numerusform>
            <numerusform>%n agent CLIs found on PATH; add the ones you want.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ApprovalText</name>
    <message numerus="yes">
        <source>… %n more line(s) not shown</source>
        <translation>
            <numerusform>… %n more line not shown</numerusform>
            <numerusform>… %n more lines not shown</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ChangesView</name>
    <message numerus="yes">
        <source>%n file(s) (+{added} −{removed})</source>
        <translation>
            <numerusform>%n file (+{added} −{removed})</numerusform>
            <numerusform>%n files (+{added} −{removed})</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>LongLines</name>
    <message numerus="yes">
        <source>… %n more character(s) on this line, not shown</source>
        <translation>
            <numerusform>… %n more character on this line, not shown</numerusform>
            <numerusform>… %n more characters on this line, not shown</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>… the rest of this line (longer than %n character(s)) is not shown</source>
        <translation>
            <numerusform>… the rest of this line (longer than %n character) is not shown</numerusform>
            <numerusform>… the rest of this line (longer than %n characters) is not shown</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MessageListModel</name>
    <message numerus="yes">
        <source>… (%n more character(s) not shown in the list)</source>
        <translation>
            <numerusform>… (%n more character not shown in the list)</numerusform>
            <numerusform>… (%n more characters not shown in the list)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Notifier</name>
    <message numerus="yes">
        <source>%n lines need you.</source>
        <translation>
            <numerusform>%n line needs you.</numerusform>
            <numerusform>%n lines need you.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ProviderSettingsDialog</name>
    <message numerus="yes">
        <source>%n model(s) offered.</source>
        <translation>
            <numerusform>%n model offered.</numerusform>
            <numerusform>%n models offered.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>{name} at {url} — %n model(s)</source>
        <translation>
            <numerusform>{name} at {url} — %n model</numerusform>
            <numerusform>{name} at {url} — %n models</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n local server(s) answered.</source>
        <translation>
            <numerusform>%n local server answered.</numerusform>
            <numerusform>%n local servers answered.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RenderingText</name>
    <message numerus="yes">
        <source>(+%n more line(s))</source>
        <translation>
            <numerusform>(+%n more line)</numerusform>
            <numerusform>(+%n more lines)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>… %n more line(s) not shown here</source>
        <translation>
            <numerusform>… %n more line not shown here</numerusform>
            <numerusform>… %n more lines not shown here</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>… %n more line(s) — click to expand</source>
        <translation>
            <numerusform>… %n more line — click to expand</numerusform>
            <numerusform>… %n more lines — click to expand</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>new file · %n byte(s)</source>
        <translation>
            <numerusform>new file · %n byte</numerusform>
            <numerusform>new file · %n bytes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n byte(s) written</source>
        <translation>
            <numerusform>%n byte written</numerusform>
            <numerusform>%n bytes written</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n line(s)</source>
        <translation>
            <numerusform>%n line</numerusform>
            <numerusform>%n lines</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Thinking… (%n word(s) — click to show)</source>
        <translation>
            <numerusform>Thinking… (%n word — click to show)</numerusform>
            <numerusform>Thinking… (%n words — click to show)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SearchPalette</name>
    <message numerus="yes">
        <source>%n message(s)</source>
        <translation>
            <numerusform>%n message</numerusform>
            <numerusform>%n messages</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n line(s)</source>
        <translation>
            <numerusform>%n line</numerusform>
            <numerusform>%n lines</numerusform>
        </translation>
    </message>
</context>
</TS>
