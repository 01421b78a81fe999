<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>ApprovalText</name>
        <message>
            <source>Network: off</source>
            <translation>网络：关闭</translation>
        </message>
        <message>
            <source>Network: allow-list only</source>
            <translation>网络：仅允许列表</translation>
        </message>
        <message>
            <source>Network: on</source>
            <translation>网络：开启</translation>
        </message>
        <message>
            <source>{network} ({hosts})</source>
            <translation>{network}（{hosts}）</translation>
        </message>
        <message>
            <source>The path is outside the line's folder; nothing was read</source>
            <translation>该路径在这条任务线的文件夹之外；未读取任何内容</translation>
        </message>
        <message>
            <source>The current file is not text; no diff to show</source>
            <translation>当前文件不是文本文件，无法显示差异</translation>
        </message>
        <message>
            <source>The current file is too large to compare</source>
            <translation>当前文件太大，无法比较</translation>
        </message>
        <message>
            <source>The text to replace is not found exactly once in the file: this edit would fail</source>
            <translation>要替换的文本在文件中并非恰好出现一次：这次编辑会失败</translation>
        </message>
        <message>
            <source>The file does not exist: this edit would fail</source>
            <translation>文件不存在：这次编辑会失败</translation>
        </message>
        <message>
            <source>{path} — new file</source>
            <translation>{path} — 新文件</translation>
        </message>
        <message>
            <source>{path} — +{added} −{removed}</source>
            <translation>{path} — +{added} −{removed}</translation>
        </message>
        <message>
            <source>The agent asks to run this command</source>
            <translation>智能体请求运行这条命令</translation>
        </message>
        <message>
            <source>No change</source>
            <translation>没有改动</translation>
        </message>
        <message>
            <source>in {folder}</source>
            <translation>位于 {folder}</translation>
        </message>
        <message numerus="yes">
            <source>… %n more line(s) not shown</source>
            <translation>
                <numerusform>… 另有 %n 行未显示</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>RenderingText</name>
        <message>
            <source>you rejected this</source>
            <translation>你拒绝了此操作</translation>
        </message>
        <message>
            <source>the write was refused</source>
            <translation>写入被拒绝</translation>
        </message>
        <message>
            <source>refused: outside the line's folder</source>
            <translation>已拒绝：在这条任务线的文件夹之外</translation>
        </message>
        <message>
            <source>refused: a hidden file</source>
            <translation>已拒绝：隐藏文件</translation>
        </message>
        <message>
            <source>refused: a hard-linked file</source>
            <translation>已拒绝：有硬链接的文件</translation>
        </message>
        <message>
            <source>refused: not a valid path</source>
            <translation>已拒绝：不是有效路径</translation>
        </message>
        <message>
            <source>the line's folder is missing</source>
            <translation>这条任务线的文件夹不存在</translation>
        </message>
        <message>
            <source>stopped before it finished</source>
            <translation>在完成前被停止</translation>
        </message>
        <message>
            <source>timed out</source>
            <translation>超时</translation>
        </message>
        <message>
            <source>the agent sent arguments that do not fit</source>
            <translation>智能体发送的参数不符合要求</translation>
        </message>
        <message>
            <source>no such tool</source>
            <translation>没有这个工具</translation>
        </message>
        <message>
            <source>failed: an internal error (logged)</source>
            <translation>失败：内部错误（已记录日志）</translation>
        </message>
        <message>
            <source>refused</source>
            <translation>已拒绝</translation>
        </message>
        <message>
            <source>the agent stopped</source>
            <translation>智能体已停止</translation>
        </message>
        <message>
            <source>unfinished</source>
            <translation>未完成</translation>
        </message>
        <message>
            <source>timed out after {seconds} s</source>
            <translation>{seconds} 秒后超时</translation>
        </message>
        <message numerus="yes">
            <source>new file · %n byte(s)</source>
            <translation>
                <numerusform>新文件 · %n 字节</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n byte(s) written</source>
            <translation>
                <numerusform>已写入 %n 字节</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ApprovalCard</name>
        <message>
            <source>Details</source>
            <translation>详情</translation>
        </message>
        <message>
            <source>Show the call's arguments exactly as the agent sent them</source>
            <translation>显示智能体发送的原始调用参数</translation>
        </message>
        <message>
            <source>The command, run by the line's shell</source>
            <translation>这条命令，由这条任务线的 shell 运行</translation>
        </message>
    </context>
</TS>
