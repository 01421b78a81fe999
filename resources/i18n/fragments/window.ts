<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>AgentActions</name>
        <message>
            <source>The agent could not start these MCP servers and went on without them: {servers}</source>
            <translation>智能体未能启动这些 MCP 服务器，已在没有它们的情况下继续：{servers}</translation>
        </message>
    </context>
</TS>
