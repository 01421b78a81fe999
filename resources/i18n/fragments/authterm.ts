<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>SignInTerminal</name>
        <message>
            <source>Sign in to {agent}</source>
            <translation>登录 {agent}</translation>
        </message>
        <message>
            <source>{agent} signs in with its own program: {command}</source>
            <translation>{agent} 通过它自己的程序登录：{command}</translation>
        </message>
        <message>
            <source>Type what the program asks for, then Enter</source>
            <translation>输入程序要求的内容，然后按回车</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>End the sign-in program; the turn ends and the line stays usable</source>
            <translation>结束登录程序；本轮结束，任务线仍可使用</translation>
        </message>
        <message>
            <source>Running…</source>
            <translation>运行中…</translation>
        </message>
        <message>
            <source>Cannot type into the sign-in program — {error}</source>
            <translation>无法向登录程序输入 — {error}</translation>
        </message>
        <message>
            <source>The sign-in program finished. The turn goes on.</source>
            <translation>登录程序已结束。本轮继续进行。</translation>
        </message>
        <message>
            <source>The sign-in program was stopped (signal {signal}).</source>
            <translation>登录程序已被停止（信号 {signal}）。</translation>
        </message>
        <message>
            <source>The sign-in program exited with status {status}.</source>
            <translation>登录程序退出，状态码 {status}。</translation>
        </message>
    </context>
    <context>
        <name>SignInCard</name>
        <message>
            <source>Opens a sign-in terminal running: {command}</source>
            <translation>打开登录终端运行：{command}</translation>
        </message>
    </context>
</TS>
