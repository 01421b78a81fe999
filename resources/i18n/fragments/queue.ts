<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>QueueItemRow</name>
        <message>
            <source>Queued follow-up {n}</source>
            <translation>排队的跟进 {n}</translation>
        </message>
        <message>
            <source>Edit</source>
            <translation>编辑</translation>
        </message>
        <message>
            <source>Change this follow-up's text</source>
            <translation>修改这条跟进的文字</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Keep the changed text</source>
            <translation>保留修改后的文字</translation>
        </message>
        <message>
            <source>Deliver this follow-up earlier</source>
            <translation>提前发送这条跟进</translation>
        </message>
        <message>
            <source>Move up</source>
            <translation>上移</translation>
        </message>
        <message>
            <source>Deliver this follow-up later</source>
            <translation>推后发送这条跟进</translation>
        </message>
        <message>
            <source>Move down</source>
            <translation>下移</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>移除</translation>
        </message>
        <message>
            <source>Do not send it</source>
            <translation>不发送它</translation>
        </message>
        <message>
            <source>Send now</source>
            <translation>立即发送</translation>
        </message>
        <message>
            <source>Give it to the running turn at its next safe point (a native agent's next step; an ACP agent's next prompt), ahead of the rest of the queue</source>
            <translation>在下一个安全点交给正在运行的轮次（内置智能体的下一步；ACP 智能体的下一条提示），排在队列其余跟进之前</translation>
        </message>
        <message>
            <source>Edit follow-up {n}</source>
            <translation>编辑跟进 {n}</translation>
        </message>
        <message>
            <source>Remove follow-up {n}</source>
            <translation>移除跟进 {n}</translation>
        </message>
        <message>
            <source>Send follow-up {n} now</source>
            <translation>立即发送跟进 {n}</translation>
        </message>
    </context>
    <context>
        <name>FollowUpQueueStrip</name>
        <message>
            <source>Queued follow-ups — sent in this order, one turn each, when the line's turn ends</source>
            <translation>排队的跟进：这条任务线的轮次结束后，按此顺序发送，每条一轮</translation>
        </message>
    </context>
</TS>
