<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
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
