<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>MessagePane</name>
        <message>
            <source>Only the hosts listed for this line, through XWorkmate's proxy</source>
            <translation>只允许为这条任务线列出的主机，经由 XWorkmate 的代理</translation>
        </message>
        <message>
            <source>What network this line's commands and agent reach: none, only the hosts on its allow-list, or all</source>
            <translation>这条任务线的命令和智能体可以访问的网络：不联网、只允许列表中的主机，或全部</translation>
        </message>
        <message>
            <source>Allow-list</source>
            <translation>允许列表</translation>
        </message>
        <message>
            <source>Commands run without network; an ACP agent reaches only its model hosts</source>
            <translation>命令在无网络的环境中运行；ACP 智能体只能访问它的模型主机</translation>
        </message>
        <message>
            <source>The whole network, local services included</source>
            <translation>整个网络，包括本机服务</translation>
        </message>
    </context>
    <context>
        <name>NetworkDeniedBar</name>
        <message>
            <source>The agent tried to reach {host}, which is not on this line's network allow-list.</source>
            <translation>智能体试图访问 {host}，但它不在这条任务线的网络允许列表中。</translation>
        </message>
        <message>
            <source>Allow this host for this line</source>
            <translation>为这条任务线允许此主机</translation>
        </message>
    </context>
</TS>
