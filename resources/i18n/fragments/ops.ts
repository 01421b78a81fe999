<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>StoreOp</name>
        <message>
            <source>Could not {what} — {error}</source>
            <translation>无法{what} — {error}</translation>
        </message>
        <message>
            <source>read the providers</source>
            <translation>读取模型服务</translation>
        </message>
        <message>
            <source>save the provider {name}</source>
            <translation>保存模型服务 {name}</translation>
        </message>
        <message>
            <source>remove the provider {name}</source>
            <translation>删除模型服务 {name}</translation>
        </message>
        <message>
            <source>read the MCP servers</source>
            <translation>读取 MCP 服务器</translation>
        </message>
        <message>
            <source>add the MCP server {name}</source>
            <translation>添加 MCP 服务器 {name}</translation>
        </message>
        <message>
            <source>remove the MCP server {name}</source>
            <translation>删除 MCP 服务器 {name}</translation>
        </message>
        <message>
            <source>save the setting</source>
            <translation>保存设置</translation>
        </message>
        <message>
            <source>save the window layout</source>
            <translation>保存窗口布局</translation>
        </message>
        <message>
            <source>change the line's notifications</source>
            <translation>更改该任务线的通知</translation>
        </message>
    </context>
</TS>
