<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>RenderingText</name>
        <message>
            <source>Reached {host}</source>
            <translation>已访问 {host}</translation>
        </message>
        <message>
            <source>Network refused: {host} — not on this line's allow-list</source>
            <translation>网络被拒绝：{host}——不在这条任务线的允许列表中</translation>
        </message>
        <message>
            <source>Allow this host for this line</source>
            <translation>为这条任务线允许此主机</translation>
        </message>
    </context>
</TS>
