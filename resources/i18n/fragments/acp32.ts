<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>McpServersDialog</name>
        <message>
            <source>give a command (stdio) or a URL (http or sse), one of them</source>
            <translation>请填写命令（stdio）或 URL（http 或 sse），二者选一</translation>
        </message>
        <message>
            <source>TOKEN=env:MY_TOKEN (references, read when the agent starts; headers for a URL)</source>
            <translation>TOKEN=env:MY_TOKEN（引用，在智能体启动时读取；URL 服务器作为请求头）</translation>
        </message>
        <message>
            <source>Environment / headers</source>
            <translation>环境变量 / 请求头</translation>
        </message>
    </context>
</TS>
