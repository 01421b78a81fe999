<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>InterruptedTurnBar</name>
        <message>
            <source>Resume</source>
            <translation>继续</translation>
        </message>
        <message>
            <source>Run the interrupted turn's last step again from what was kept</source>
            <translation>根据已保留的内容重新运行被中断轮次的最后一步</translation>
        </message>
        <message>
            <source>what the agent had written so far is kept above</source>
            <translation>智能体已写出的内容保留在上方</translation>
        </message>
        <message>
            <source>what the agent had stored is kept above</source>
            <translation>智能体已保存的内容保留在上方</translation>
        </message>
        <message>
            <source>your message is kept above</source>
            <translation>你的消息保留在上方</translation>
        </message>
        <message>
            <source>This line's last turn was interrupted by a crash; {what}. Resume continues it.</source>
            <translation>这条任务线的上一轮因崩溃而中断；{what}。点击“继续”可接着运行。</translation>
        </message>
    </context>
</TS>
