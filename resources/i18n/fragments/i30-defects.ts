<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>ComposerKeys</name>
        <message>
            <source>Send this task a follow-up… (it replaces the words the task acts on; {keys})</source>
            <translation>给这个任务发送跟进…（它会取代任务所依据的话；{keys}）</translation>
        </message>
        <message>
            <source>Type a request for this task line… ({keys})</source>
            <translation>为这条任务线输入请求…（{keys}）</translation>
        </message>
    </context>
    <context>
        <name>ChangesView</name>
        <message>
            <source>{path} (reverted)</source>
            <translation>{path}（改动已撤销）</translation>
        </message>
        <message>
            <source>reverted: back as it was before this turn</source>
            <translation>改动已撤销：恢复为这一轮之前的样子</translation>
        </message>
    </context>
    <context>
        <name>EmptyConversation</name>
        <message>
            <source>Runnable — no provider yet, so a message is only saved</source>
            <translation>可运行——尚无模型服务，消息只会被保存</translation>
        </message>
    </context>
    <context>
        <name>Notifier</name>
        <message>
            <source>{title} — {app}</source>
            <translation>{title} — {app}</translation>
        </message>
        <message>
            <source>({count}) {title}</source>
            <translation>（{count}）{title}</translation>
        </message>
    </context>
</TS>
