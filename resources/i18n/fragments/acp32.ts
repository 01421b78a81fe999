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
    <context>
        <name>AgentSessionBar</name>
        <message>
            <source>The agent&apos;s mode (sent as its mode option, or session/set_mode)</source>
            <translation>智能体的模式（作为其模式选项发送，或用 session/set_mode）</translation>
        </message>
        <message>
            <source>The agent&apos;s model (sent as its model option)</source>
            <translation>智能体使用的模型（作为其模型选项发送）</translation>
        </message>
        <message>
            <source>Delete…</source>
            <translation>删除…</translation>
        </message>
        <message>
            <source>Delete an agent session</source>
            <translation>删除智能体会话</translation>
        </message>
        <message>
            <source>Delete one of the agent&apos;s sessions; the agent forgets it for good</source>
            <translation>删除智能体的某个会话；智能体将永久忘记它</translation>
        </message>
    </context>
    <context>
        <name>AgentSessionDeleter</name>
        <message>
            <source>Agent session not deleted — {error}</source>
            <translation>未删除智能体会话 — {error}</translation>
        </message>
    </context>
    <context>
        <name>SessionDeleteDialog</name>
        <message>
            <source>Delete agent session</source>
            <translation>删除智能体会话</translation>
        </message>
        <message>
            <source>Delete the agent&apos;s session “{label}”? The agent forgets it for good.</source>
            <translation>删除智能体的会话“{label}”？智能体将永久忘记它。</translation>
        </message>
        <message>
            <source>Delete session</source>
            <translation>删除会话</translation>
        </message>
    </context>
</TS>
