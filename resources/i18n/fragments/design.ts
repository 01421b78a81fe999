<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>KeyChip</name>
        <message>
            <source>This line's session key; click to copy it</source>
            <translation>这条任务线的会话键；点击即可复制</translation>
        </message>
    </context>
    <context>
        <name>MessagePane</name>
        <message>
            <source>Copied the session key {key}</source>
            <translation>已复制会话键 {key}</translation>
        </message>
    </context>
</TS>
