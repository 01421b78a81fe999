<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>Shortcuts</name>
        <message>
            <source>Window</source>
            <translation>窗口</translation>
        </message>
        <message>
            <source>Selected message</source>
            <translation>选中的消息</translation>
        </message>
        <message>
            <source>Approval card</source>
            <translation>审批卡片</translation>
        </message>
        <message>
            <source>New task line</source>
            <translation>新建任务线</translation>
        </message>
        <message>
            <source>Search lines</source>
            <translation>搜索任务线</translation>
        </message>
        <message>
            <source>Filter task lines</source>
            <translation>筛选任务线</translation>
        </message>
        <message>
            <source>Open the line at that place in the list</source>
            <translation>打开列表中该位置的任务线</translation>
        </message>
        <message>
            <source>Next line that needs you</source>
            <translation>下一条需要你处理的任务线</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>发送</translation>
        </message>
        <message>
            <source>Stop the running turn</source>
            <translation>停止正在运行的轮次</translation>
        </message>
        <message>
            <source>Archive task line</source>
            <translation>归档任务线</translation>
        </message>
        <message>
            <source>Show or hide the task lines</source>
            <translation>显示或隐藏任务线</translation>
        </message>
        <message>
            <source>Show or hide the workspace</source>
            <translation>显示或隐藏工作区</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>设置</translation>
        </message>
        <message>
            <source>Keyboard shortcuts</source>
            <translation>键盘快捷键</translation>
        </message>
        <message>
            <source>Quit</source>
            <translation>退出</translation>
        </message>
        <message>
            <source>Copy as Markdown</source>
            <translation>复制为 Markdown</translation>
        </message>
        <message>
            <source>Allow once</source>
            <translation>允许一次</translation>
        </message>
        <message>
            <source>Reject</source>
            <translation>拒绝</translation>
        </message>
        <message>
            <source>Always for this line</source>
            <translation>此任务线始终允许</translation>
        </message>
    </context>
    <context>
        <name>ShortcutsDialog</name>
        <message>
            <source>Keyboard shortcuts</source>
            <translation>键盘快捷键</translation>
        </message>
        <message>
            <source>&amp;Keyboard shortcuts</source>
            <translation>键盘快捷键(&amp;K)</translation>
        </message>
        <message>
            <source>Action</source>
            <translation>操作</translation>
        </message>
        <message>
            <source>Keys</source>
            <translation>按键</translation>
        </message>
        <message>
            <source>Where</source>
            <translation>适用范围</translation>
        </message>
    </context>
</TS>
