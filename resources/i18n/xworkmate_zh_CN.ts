<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AcpAgentsSection</name>
    <message>
        <source>No agent CLI found on PATH (looked for qwen, gemini, codex-acp, claude-code-acp, opencode and goose). Add one by hand below: a name and the command that starts it in ACP mode, e.g. “qwen --acp” or “gemini --experimental-acp”.</source>
        <translation>在 PATH 中没有找到智能体 CLI（查找了 qwen、gemini、codex-acp、claude-code-acp、opencode 和 goose）。请在下方手动添加：填写名称，以及以 ACP 模式启动它的命令，例如“qwen --acp”或“gemini --experimental-acp”。</translation>
    </message>
    <message>
        <source>give the agent a name, e.g. qwen</source>
        <translation>请给智能体起个名字，例如 qwen</translation>
    </message>
    <message>
        <source>cannot read the command line ({reason})</source>
        <translation>无法解析命令行（{reason}）</translation>
    </message>
    <message>
        <source>type the command that starts the agent in ACP mode, e.g. qwen --acp</source>
        <translation>请输入以 ACP 模式启动智能体的命令，例如 qwen --acp</translation>
    </message>
    <message>
        <source>version unknown</source>
        <translation>版本未知</translation>
    </message>
    <message>
        <source>{label} (already added)</source>
        <translation>{label}（已添加）</translation>
    </message>
    <message>
        <source>ACP agents (external agent CLIs)</source>
        <translation>ACP 智能体（外部智能体 CLI）</translation>
    </message>
    <message>
        <source>Find agent CLIs on PATH</source>
        <translation>在 PATH 中查找智能体 CLI</translation>
    </message>
    <message>
        <source>Look for qwen, gemini, codex-acp, claude-code-acp, opencode and goose; ask each for its version</source>
        <translation>查找 qwen、gemini、codex-acp、claude-code-acp、opencode 和 goose，并询问各自的版本</translation>
    </message>
    <message>
        <source>Add this agent</source>
        <translation>添加这个智能体</translation>
    </message>
    <message>
        <source>qwen, gemini, my-agent … (no spaces)</source>
        <translation>qwen、gemini、my-agent…（不含空格）</translation>
    </message>
    <message>
        <source>the command that starts it in ACP mode, e.g. qwen --acp</source>
        <translation>以 ACP 模式启动它的命令，例如 qwen --acp</translation>
    </message>
    <message>
        <source>optional: NAME=env:VAR or NAME=keyring:ENTRY, separated by spaces</source>
        <translation>可选：NAME=env:VAR 或 NAME=keyring:ENTRY，用空格分隔</translation>
    </message>
    <message>
        <source>default: the agent&apos;s own folders (e.g. ~/.qwen); comma-separated</source>
        <translation>默认：智能体自己的文件夹（例如 ~/.qwen）；用逗号分隔</translation>
    </message>
    <message>
        <source>The agent runs in a sandbox: its line&apos;s folder and these folders are the only places it may write. Leave empty for the defaults of a known agent.</source>
        <translation>智能体在沙箱中运行：它只能写入所在任务线的工作目录和这里列出的文件夹。留空则使用已知智能体的默认文件夹。</translation>
    </message>
    <message>
        <source>optional: the sign-in method id to use (e.g. openai)</source>
        <translation>可选：要使用的登录方式 ID（例如 openai）</translation>
    </message>
    <message>
        <source>Leave empty: the only method the agent offers is used, or the window asks which one when there are several</source>
        <translation>留空：智能体只提供一种登录方式时直接使用；有多种时，窗口会询问用哪一种</translation>
    </message>
    <message>
        <source>Add agent</source>
        <translation>添加智能体</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Command:</source>
        <translation>命令：</translation>
    </message>
    <message>
        <source>Environment:</source>
        <translation>环境变量：</translation>
    </message>
    <message>
        <source>Writable folders:</source>
        <translation>可写文件夹：</translation>
    </message>
    <message>
        <source>Sign-in method:</source>
        <translation>登录方式：</translation>
    </message>
    <message>
        <source>Add an agent by hand:</source>
        <translation>手动添加智能体：</translation>
    </message>
    <message numerus="yes">
        <source>%n agent CLI(s) found on PATH; add the ones you want.</source>
        <translation>
            <numerusform>在 PATH 中找到 %n 个智能体 CLI，请添加你需要的。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>AgentActions</name>
    <message>
        <source>The agent could not start these MCP servers and went on without them: {servers}</source>
        <translation>智能体未能启动这些 MCP 服务器，已在没有它们的情况下继续：{servers}</translation>
    </message>
    <message>
        <source>Execution mode not changed — {error}</source>
        <translation>执行方式未更改：{error}</translation>
    </message>
    <message>
        <source>Session not bound — {error}</source>
        <translation>会话未绑定：{error}</translation>
    </message>
    <message>
        <source>Agent MCP servers not changed — {error}</source>
        <translation>智能体的 MCP 服务器未更改：{error}</translation>
    </message>
    <message>
        <source>Cannot show the line&apos;s usage — {error}</source>
        <translation>无法显示任务线的用量：{error}</translation>
    </message>
    <message>
        <source>Agent mode not changed — {error}</source>
        <translation>智能体模式未更改：{error}</translation>
    </message>
    <message>
        <source>Agent model not changed — {error}</source>
        <translation>智能体模型未更改：{error}</translation>
    </message>
    <message>
        <source>Agent option not changed — {error}</source>
        <translation>智能体选项未更改：{error}</translation>
    </message>
</context>
<context>
    <name>AgentSessionBar</name>
    <message>
        <source>Agent mode</source>
        <translation>智能体模式</translation>
    </message>
    <message>
        <source>Agent model</source>
        <translation>智能体模型</translation>
    </message>
    <message>
        <source>The agent&apos;s mode (sent as its mode option, or session/set_mode)</source>
        <translation>智能体的模式（作为其模式选项发送，或用 session/set_mode）</translation>
    </message>
    <message>
        <source>The agent&apos;s model (sent as its model option)</source>
        <translation>智能体使用的模型（作为其模型选项发送）</translation>
    </message>
    <message>
        <source>Agent session</source>
        <translation>智能体会话</translation>
    </message>
    <message>
        <source>Continue one of the agent&apos;s existing sessions, or start a new one</source>
        <translation>继续智能体已有的某个会话，或开始新会话</translation>
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
    <message>
        <source>New session</source>
        <translation>新会话</translation>
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
    <name>ApprovalCard</name>
    <message>
        <source>edits inside the line&apos;s folder run without asking (commands still ask)</source>
        <translation>任务线工作目录内的编辑不再询问（命令仍会询问）</translation>
    </message>
    <message>
        <source>edits and commands run without asking</source>
        <translation>编辑和命令都不再询问</translation>
    </message>
    <message>
        <source>Allow this call and raise this line&apos;s permission to {level}: from the next turn on, {effect}. The permission picker below changes it back. (An ACP agent instead remembers the answer for its session.)</source>
        <translation>允许这次调用，并把这条任务线的权限提升为“{level}”：从下一轮次起，{effect}。可在下方的权限选择器中改回。（ACP 智能体则改为在其会话内记住这次回答。）</translation>
    </message>
    <message>
        <source>The agent asks to {summary}</source>
        <translation>智能体请求：{summary}</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Show the call&apos;s arguments exactly as the agent sent them</source>
        <translation>显示智能体发送的原始调用参数</translation>
    </message>
    <message>
        <source>The arguments of {tool}, exactly as the agent sent them</source>
        <translation>{tool} 的参数，与智能体发来的完全一致</translation>
    </message>
    <message>
        <source>With this card focused: Y allows once, N rejects, A allows always (where offered)</source>
        <translation>此卡片获得焦点时：按 Y 允许一次，按 N 拒绝，按 A 始终允许（如有此选项）</translation>
    </message>
    <message>
        <source>Allow once (Y)</source>
        <translation>允许一次（Y）</translation>
    </message>
    <message>
        <source>Run this one call; the agent asks again next time</source>
        <translation>只运行这一次调用；下次智能体仍会询问</translation>
    </message>
    <message>
        <source>Reject (N)</source>
        <translation>拒绝（N）</translation>
    </message>
    <message>
        <source>Refuse; the agent is told the person rejected it and nothing runs</source>
        <translation>拒绝：智能体会得知你拒绝了，什么都不会运行</translation>
    </message>
    <message>
        <source>Always for this line (A)</source>
        <translation>此任务线始终允许（A）</translation>
    </message>
    <message>
        <source>⚠ This command will run without a sandbox, with all your rights: {reason}</source>
        <translation>⚠ 此命令将在沙箱之外运行，拥有你的全部权限：{reason}</translation>
    </message>
    <message>
        <source>Without a sandbox every command asks; install bubblewrap to stop asking</source>
        <translation>没有沙箱时每条命令都会询问；安装 bubblewrap 后即可不再询问</translation>
    </message>
    <message>
        <source>The command, run by the line&apos;s shell</source>
        <translation>这条命令，由这条任务线的 shell 运行</translation>
    </message>
</context>
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
        <source>The path is outside the line&apos;s folder; nothing was read</source>
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
        <source>{network} ({hosts})</source>
        <translation>{network}（{hosts}）</translation>
    </message>
    <message numerus="yes">
        <source>… %n more line(s) not shown</source>
        <translation>
            <numerusform>… 另有 %n 行未显示</numerusform>
        </translation>
    </message>
    <message>
        <source>Lines longer than {limit} characters are cut here; Details shows the whole call</source>
        <translation>超过 {limit} 个字符的行在此处被截断；“详情”中有完整的调用</translation>
    </message>
    <message>
        <source>Lines longer than {limit} characters are folded: {mark}starts the rest of one</source>
        <translation>超过 {limit} 个字符的行被折开显示：{mark}开头的是上一行的其余部分</translation>
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
        <source>No change</source>
        <translation>没有改动</translation>
    </message>
    <message>
        <source>in {folder}</source>
        <translation>位于 {folder}</translation>
    </message>
    <message>
        <source>The agent asks to run this command</source>
        <translation>智能体请求运行这条命令</translation>
    </message>
</context>
<context>
    <name>AttachmentStrip</name>
    <message>
        <source>Remove this attachment</source>
        <translation>移除此附件</translation>
    </message>
    <message>
        <source>Remove {name}</source>
        <translation>移除 {name}</translation>
    </message>
</context>
<context>
    <name>ChangesView</name>
    <message>
        <source>Turn</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Whole line</source>
        <translation>整条任务线</translation>
    </message>
    <message>
        <source>Uncommitted</source>
        <translation>未提交</translation>
    </message>
    <message>
        <source>added</source>
        <translation>新增</translation>
    </message>
    <message>
        <source>modified</source>
        <translation>修改</translation>
    </message>
    <message>
        <source>deleted</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>%n file(s) changed</source>
        <translation>改动了 %n 个文件</translation>
    </message>
    <message>
        <source>large</source>
        <translation>过大</translation>
    </message>
    <message>
        <source>binary</source>
        <translation>二进制</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>{path} (reverted)</source>
        <translation>{path}（改动已撤销）</translation>
    </message>
    <message>
        <source> (mode)</source>
        <translation>（文件模式）</translation>
    </message>
    <message>
        <source>reverted: back as it was before this turn</source>
        <translation>改动已撤销：恢复为这一轮之前的样子</translation>
    </message>
    <message>
        <source>binary: no text diff</source>
        <translation>二进制：没有文本差异</translation>
    </message>
    <message>
        <source>over the size cap: listed, not stored, cannot be reverted</source>
        <translation>超出大小上限：只列出，未保存，无法撤销改动</translation>
    </message>
    <message>
        <source>executable bit changed</source>
        <translation>可执行位已变</translation>
    </message>
    <message>
        <source>{path} — {notes}</source>
        <translation>{path} — {notes}</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>Changes of</source>
        <translation>改动范围</translation>
    </message>
    <message>
        <source>Revert file</source>
        <translation>撤销文件改动</translation>
    </message>
    <message>
        <source>Put this file back as it was before the turn</source>
        <translation>把这个文件恢复到该轮次之前的样子</translation>
    </message>
    <message>
        <source>Revert hunk</source>
        <translation>撤销这段改动</translation>
    </message>
    <message>
        <source>Take back the hunk under the cursor in the diff</source>
        <translation>撤销差异中光标所在的那段改动</translation>
    </message>
    <message>
        <source>Restore files to before this turn</source>
        <translation>把文件恢复到这一轮次之前</translation>
    </message>
    <message>
        <source>Put the whole folder back as it was before this turn (it can be undone)</source>
        <translation>把整个工作目录恢复到这一轮次之前的样子（可以撤回）</translation>
    </message>
    <message>
        <source>Undo restore</source>
        <translation>撤回恢复</translation>
    </message>
    <message>
        <source>Bring the files back as they were before the last restore or revert</source>
        <translation>把文件还原到上一次恢复或撤销改动之前的样子</translation>
    </message>
    <message>
        <source>No file to show.</source>
        <translation>没有可显示的文件。</translation>
    </message>
    <message>
        <source>No turn on this line has changed files yet.</source>
        <translation>这条任务线还没有哪一轮次改动过文件。</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) (+{added} −{removed})</source>
        <translation>
            <numerusform>%n 个文件（+{added} −{removed}）</numerusform>
        </translation>
    </message>
    <message>
        <source>Turn {turn} changed {files}.</source>
        <translation>第 {turn} 轮次改动了 {files}。</translation>
    </message>
    <message>
        <source>Turn {turn} changed no files.</source>
        <translation>第 {turn} 轮次没有改动文件。</translation>
    </message>
    <message>
        <source>This line&apos;s turns changed {files} in all.</source>
        <translation>这条任务线的各轮次共改动了 {files}。</translation>
    </message>
    <message>
        <source>This line&apos;s turns changed no files.</source>
        <translation>这条任务线的各轮次没有改动文件。</translation>
    </message>
    <message>
        <source>Uncommitted in this repository: {files}.</source>
        <translation>这个仓库中未提交的改动：{files}。</translation>
    </message>
    <message>
        <source>Nothing uncommitted in this repository.</source>
        <translation>这个仓库没有未提交的改动。</translation>
    </message>
    <message>
        <source>{path} is over the size cap: it was listed, not stored.</source>
        <translation>{path} 超出大小上限：只列出，未保存。</translation>
    </message>
    <message>
        <source>{path} is binary: there is no text diff.</source>
        <translation>{path} 是二进制文件：没有文本差异。</translation>
    </message>
    <message>
        <source>{path}: no text changes (only its mode changed).</source>
        <translation>{path}：没有文本改动（只有文件模式变了）。</translation>
    </message>
    <message>
        <source>Turn {turn} (last) · {files}</source>
        <translation>第 {turn} 轮次（最近）· {files}</translation>
    </message>
    <message>
        <source>Turn {turn} · {files}</source>
        <translation>第 {turn} 轮次 · {files}</translation>
    </message>
    <message>
        <source>Turn {turn} · no files changed</source>
        <translation>第 {turn} 轮次 · 没有改动文件</translation>
    </message>
    <message>
        <source>Revert hunk {number}</source>
        <translation>撤销第 {number} 段改动</translation>
    </message>
    <message>
        <source>Put the whole folder back as it was before turn {turn} (it can be undone)</source>
        <translation>把整个工作目录恢复到第 {turn} 轮次之前的样子（可以撤回）</translation>
    </message>
    <message>
        <source>Pick “Turn”: a restore goes back to before one turn</source>
        <translation>请选择「轮次」：恢复是回到某一轮次之前</translation>
    </message>
    <message>
        <source>Revert works on one turn&apos;s changes: pick “Turn”</source>
        <translation>撤销改动针对某一轮次的改动：请选择「轮次」</translation>
    </message>
    <message>
        <source>{path} is back as it was before turn {turn}.</source>
        <translation>{path} 已恢复到第 {turn} 轮次之前的样子。</translation>
    </message>
    <message>
        <source>Hunk {number} of {path} from turn {turn} was taken back.</source>
        <translation>已撤销 {path} 在第 {turn} 轮次的第 {number} 段改动。</translation>
    </message>
    <message>
        <source>The files are back as they were before turn {turn}. The line was forked there as {key}.</source>
        <translation>文件已恢复到第 {turn} 轮次之前的样子。任务线已在该处分叉为 {key}。</translation>
    </message>
    <message>
        <source>The files are back as they were before turn {turn}.</source>
        <translation>文件已恢复到第 {turn} 轮次之前的样子。</translation>
    </message>
    <message>
        <source>Files changed after that turn began, while the folder&apos;s first checkpoint was being taken: some of the turn&apos;s own first changes may still be there.</source>
        <translation>该轮开始后、文件夹的首个检查点仍在生成时，有文件发生了变化：该轮自己最早的一些改动可能仍然保留。</translation>
    </message>
    <message>
        <source>The restore was undone: the files are back as they were before it.</source>
        <translation>已撤回恢复：文件回到了恢复之前的样子。</translation>
    </message>
</context>
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
    <message>
        <source>Enter sends, Shift+Enter adds a line</source>
        <translation>Enter 发送，Shift+Enter 换行</translation>
    </message>
    <message>
        <source>Ctrl+Enter sends, Enter adds a line</source>
        <translation>Ctrl+Enter 发送，Enter 换行</translation>
    </message>
</context>
<context>
    <name>ConversationActions</name>
    <message>
        <source>Not sent yet — the composer holds this line&apos;s draft or later typing besides your words; send again when it reads right.</source>
        <translation>尚未发送——输入框里除了你的话，还有这条线的草稿或之后输入的内容；确认无误后再发送。</translation>
    </message>
    <message>
        <source>Not sent — {key} did not open; your text is in this line&apos;s composer.</source>
        <translation>未发送——{key} 没有打开；你的文字在这条线的输入框里。</translation>
    </message>
    <message>
        <source>Not sent yet — an attachment is still being prepared; send again in a moment.</source>
        <translation>尚未发送——附件仍在准备中；请稍后再发送。</translation>
    </message>
    <message>
        <source>Not sent — a task&apos;s follow-up takes text only; remove the attachments first.</source>
        <translation>未发送——任务的后续消息只能是文字；请先移除附件。</translation>
    </message>
    <message>
        <source>Not sent — {reason}. Your text is still in the composer.</source>
        <translation>未发送：{reason}。你的文字仍在输入框中。</translation>
    </message>
    <message>
        <source>Follow-up saved on the task, but no agent provider is configured, so it did not run.</source>
        <translation>跟进已保存在任务上，但尚未配置智能体模型服务，所以没有运行。</translation>
    </message>
    <message>
        <source>Follow-up not sent — {reason}. Your text is still in the composer.</source>
        <translation>跟进未发送：{reason}。你的文字仍在输入框中。</translation>
    </message>
    <message>
        <source>Could not read the follow-up queue — {error}</source>
        <translation>无法读取跟进队列：{error}</translation>
    </message>
    <message>
        <source>Could not change the queued follow-up — {error}. Your changed text is in the composer.</source>
        <translation>无法修改排队的跟进：{error}。你改过的文字在输入框中。</translation>
    </message>
    <message>
        <source>Follow-up {n} left the queue before your change to it was saved; your changed text is in the composer.</source>
        <translation>跟进 {n} 在你的修改保存前已离开队列；你改过的文字在输入框中。</translation>
    </message>
    <message>
        <source>Could not move the queued follow-up — {error}</source>
        <translation>无法移动排队的跟进：{error}</translation>
    </message>
    <message>
        <source>Could not remove the queued follow-up — {error}</source>
        <translation>无法移除排队的跟进：{error}</translation>
    </message>
    <message>
        <source>Not sent — {error}. It is still in the queue.</source>
        <translation>未发送：{error}。它仍在队列中。</translation>
    </message>
    <message>
        <source>Show to the model again</source>
        <translation>重新对模型显示</translation>
    </message>
    <message>
        <source>The model sees this message&apos;s text again on this line</source>
        <translation>模型在这条任务线上重新能看到这条消息的文本</translation>
    </message>
    <message>
        <source>Hide from the model</source>
        <translation>对模型隐藏</translation>
    </message>
    <message>
        <source>Keep it here, but show the model only a placeholder naming it, on this line and its forks</source>
        <translation>消息留在这里，但在这条任务线及其分叉上，模型只能看到一个指明它的占位符</translation>
    </message>
    <message>
        <source>Only tool results and agents&apos; messages can be hidden from the model</source>
        <translation>只有工具结果和智能体的消息可以对模型隐藏</translation>
    </message>
    <message>
        <source>Could not change what the model sees — {error}</source>
        <translation>无法更改模型能看到的内容：{error}</translation>
    </message>
    <message>
        <source>Could not read older messages — {error}</source>
        <translation>无法读取更早的消息：{error}</translation>
    </message>
</context>
<context>
    <name>CoreText</name>
    <message>
        <source>invalid content category {value!r}: use 1-64 characters from a-z, 0-9, &apos;_&apos; and &apos;-&apos;, starting with a letter or digit</source>
        <translation>无效的内容类别 {value!r}：请用 1-64 个字符（a-z、0-9、&apos;_&apos; 和 &apos;-&apos;），以字母或数字开头</translation>
    </message>
    <message>
        <source>empty content category {value!r}: name a category, or clear the category to make it normal (`xworkmate thread category KEY --clear`)</source>
        <translation>内容类别 {value!r} 为空：请写出一个类别；要改回普通内容，请清除类别（`xworkmate thread category KEY --clear`）</translation>
    </message>
    <message>
        <source>this conversation has no content category, so it cannot dispatch a task of category {declared!r}; omit `category` to dispatch a normal task</source>
        <translation>这个对话没有内容类别，不能派发类别为 {declared!r} 的任务；省略 `category` 即派普通任务</translation>
    </message>
    <message>
        <source>category {declared!r} is not this thread&apos;s category ({owner!r}): a task may declare only its dispatcher&apos;s own category; pass {owner!r} for work on this category&apos;s content, or omit `category` to dispatch a normal task</source>
        <translation>类别 {declared!r} 不是本线程的类别（{owner!r}）：任务只能声明派发者自己的类别；处理本类别的内容请传 {owner!r}，否则省略 `category` 即派普通任务</translation>
    </message>
    <message>
        <source>Reminder: this is a normal task. Keep this conversation&apos;s {category!r} content out of its goal and context; to dispatch work related to {category!r}, pass &quot;category&quot;: &quot;{category}&quot;.</source>
        <translation>这是普通任务：goal / context 里不要带本类别（{category!r}）的内容；要派与本类别相关的活，传 category（&quot;category&quot;: &quot;{category}&quot;）。</translation>
    </message>
    <message>
        <source>a task of category {category!r} cannot run in ACP mode: external agent CLIs do not go through the category router (CAT-3); use native mode with a model tagged {category!r}</source>
        <translation>类别为 {category!r} 的任务不能在 ACP 模式下运行：外部 agent CLI 不经过类别路由，类别内容不能交给 CLI；请用原生模式和带 {category!r} 标签的模型</translation>
    </message>
    <message>
        <source>model {provider!r} is not tagged {category!r}, so it may not see this task&apos;s content; choose a model tagged {category!r} or leave the model unset to use the first one of the group</source>
        <translation>模型 {provider!r} 没有 {category!r} 标签，不能看到这个任务的内容；请选一个带 {category!r} 标签的模型，或者不指定模型，用组里第一个带标签的模型</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主任务线</translation>
    </message>
    <message>
        <source>the line&apos;s folder {path} was replaced by a symbolic link to {target} since it was bound; pick its folder again (Change folder…)</source>
        <translation>这条任务线的工作目录 {path} 在绑定之后被换成了指向 {target} 的符号链接；请重新选择它的工作目录（“更换文件夹…”）</translation>
    </message>
    <message>
        <source>the line&apos;s folder {path} was replaced by another folder since it was bound; pick its folder again (Change folder…)</source>
        <translation>这条任务线的工作目录 {path} 在绑定之后被换成了另一个文件夹；请重新选择它的工作目录（“更换文件夹…”）</translation>
    </message>
    <message>
        <source>the line&apos;s folder {path} now leads to {target}, not to the folder it was bound to; pick its folder again (Change folder…)</source>
        <translation>这条任务线的工作目录 {path} 现在指向 {target}，不再是绑定时的那个文件夹；请重新选择它的工作目录（“更换文件夹…”）</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>this line has no session key or no thread record; create a new task line</source>
        <translation>这条任务线没有会话键或线程记录；请新建一条任务线</translation>
    </message>
    <message>
        <source>this line&apos;s folder is missing; choose one with “Change folder…”</source>
        <translation>这条任务线的工作目录不存在；请用“更换文件夹…”选一个</translation>
    </message>
    <message>
        <source>a turn is already running on this line</source>
        <translation>这条任务线上已有一个轮次在运行</translation>
    </message>
    <message>
        <source>this line is archived</source>
        <translation>这条任务线已归档</translation>
    </message>
    <message>
        <source>run `{command}`</source>
        <translation>运行 `{command}`</translation>
    </message>
    <message>
        <source>write {path}</source>
        <translation>写入 {path}</translation>
    </message>
    <message>
        <source>edit {path}</source>
        <translation>编辑 {path}</translation>
    </message>
    <message>
        <source>read file {path}</source>
        <translation>读取文件 {path}</translation>
    </message>
    <message>
        <source>list dir {path}</source>
        <translation>列出目录 {path}</translation>
    </message>
    <message>
        <source>search for {pattern!r} in {path}</source>
        <translation>在 {path} 中搜索 {pattern!r}</translation>
    </message>
    <message>
        <source>read skill {name}</source>
        <translation>读取技能 {name}</translation>
    </message>
    <message>
        <source>needs approval</source>
        <translation>等待审批</translation>
    </message>
    <message>
        <source>needs sign-in</source>
        <translation>等待登录</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>new</source>
        <translation>新回复</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
</context>
<context>
    <name>Dialogs</name>
    <message>
        <source>Choose the folder for this task line</source>
        <translation>为这条任务线选择工作目录</translation>
    </message>
    <message>
        <source>Rename task line</source>
        <translation>重命名任务线</translation>
    </message>
    <message>
        <source>Title:</source>
        <translation>标题：</translation>
    </message>
    <message>
        <source>Set category</source>
        <translation>设置类别</translation>
    </message>
    <message>
        <source>Category for this line and everything it dispatched (e.g. medical; empty = normal content):</source>
        <translation>这条任务线及其派发的全部任务的类别（例如 medical；留空表示普通内容）：</translation>
    </message>
    <message>
        <source>XWorkmate could not start</source>
        <translation>XWorkmate 无法启动</translation>
    </message>
    <message>
        <source>Database: {database}
Set XWORKMATE_DATABASE_URL or XWORKMATE_HOME to use another one; `xworkmate doctor` shows what XWorkmate can see.</source>
        <translation>数据库：{database}
设置 XWORKMATE_DATABASE_URL 或 XWORKMATE_HOME 可改用其他数据库；`xworkmate doctor` 会显示 XWorkmate 能看到的情况。</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>数据目录</translation>
    </message>
    <message>
        <source>Database</source>
        <translation>数据库</translation>
    </message>
    <message>
        <source>A desktop workbench for AI agent tasks: task lines side by side, each with its own session key, folder and conversation.</source>
        <translation>面向 AI 智能体任务的桌面工作台：多条任务线并排，每条都有自己的会话键、工作目录和对话。</translation>
    </message>
</context>
<context>
    <name>ElicitationCard</name>
    <message>
        <source>The agent asks: {message}</source>
        <translation>智能体询问：{message}</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Submit</source>
        <translation>提交</translation>
    </message>
    <message>
        <source>Decline</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Say no: the agent is told you declined</source>
        <translation>拒绝：智能体会得知你拒绝了</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Dismiss without answering</source>
        <translation>不作回答直接关闭</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Open the address in your browser; press Done when you finished there</source>
        <translation>在浏览器中打开该地址；在那里完成后按“完成”</translation>
    </message>
    <message>
        <source>Tell the agent you finished at that address</source>
        <translation>告诉智能体你已在该地址完成</translation>
    </message>
    <message>
        <source>This form asks for {names}, which XWorkmate cannot show; decline it or cancel</source>
        <translation>此表单要求填写 {names}，XWorkmate 无法显示；请拒绝或取消</translation>
    </message>
    <message>
        <source>Send these values to the agent (fields marked * are required)</source>
        <translation>将这些值发送给智能体（标 * 的字段为必填）</translation>
    </message>
    <message>
        <source>(choose)</source>
        <translation>（请选择）</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Still needed: {names}</source>
        <translation>仍需填写：{names}</translation>
    </message>
</context>
<context>
    <name>EmptyConversation</name>
    <message>
        <source>No messages yet. To get answers, add an agent provider (an OpenAI-compatible endpoint) or use an agent CLI found on your PATH. Until then, what you send is saved but nothing runs.</source>
        <translation>还没有消息。要得到回答，请添加一个智能体模型服务（兼容 OpenAI 的端点），或使用在 PATH 中找到的智能体 CLI。在此之前，你发送的内容会被保存，但不会运行。</translation>
    </message>
    <message>
        <source>Runnable — no provider yet, so a message is only saved</source>
        <translation>可运行——尚无模型服务，消息只会被保存</translation>
    </message>
    <message>
        <source>Add a provider…</source>
        <translation>添加模型服务…</translation>
    </message>
    <message>
        <source>Add an agent provider</source>
        <translation>添加智能体模型服务</translation>
    </message>
    <message>
        <source>Use an agent found on PATH…</source>
        <translation>使用在 PATH 中找到的智能体…</translation>
    </message>
    <message>
        <source>Look for agent CLIs on PATH</source>
        <translation>在 PATH 中查找智能体 CLI</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>This line carries category {category}: “{title}” and its tasks hold {category} content. The exported file leaves XWorkmate&apos;s category rules behind; whoever can read the file can read it. Export anyway?</source>
        <translation>这条任务线带有类别 {category}：「{title}」及其任务含有 {category} 内容。导出的文件不再受 XWorkmate 的类别规则约束；任何能读取该文件的人都能读到这些内容。仍要导出吗？</translation>
    </message>
    <message>
        <source>Export line</source>
        <translation>导出任务线</translation>
    </message>
    <message>
        <source>Export a category line</source>
        <translation>导出带类别的任务线</translation>
    </message>
</context>
<context>
    <name>FollowUpQueueStrip</name>
    <message>
        <source>Queued follow-ups — sent in this order, one turn each, when the line&apos;s turn ends</source>
        <translation>排队的跟进：这条任务线的轮次结束后，按此顺序发送，每条一轮</translation>
    </message>
</context>
<context>
    <name>InterruptedTurnBar</name>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Run the interrupted turn&apos;s last step again from what was kept</source>
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
        <source>This line&apos;s last turn was interrupted by a crash; {what}. Resume continues it.</source>
        <translation>这条任务线的上一轮因崩溃而中断；{what}。点击“继续”可接着运行。</translation>
    </message>
</context>
<context>
    <name>KeyChip</name>
    <message>
        <source>This line&apos;s session key; click to copy it</source>
        <translation>这条任务线的会话键；点击即可复制</translation>
    </message>
</context>
<context>
    <name>Keyboard</name>
    <message>
        <source>Message to the agent</source>
        <translation>发给智能体的消息</translation>
    </message>
    <message>
        <source>Filter task lines</source>
        <translation>筛选任务线</translation>
    </message>
    <message>
        <source>Task lines</source>
        <translation>任务线</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Files in the line&apos;s folder</source>
        <translation>任务线工作目录中的文件</translation>
    </message>
    <message>
        <source>File preview</source>
        <translation>文件预览</translation>
    </message>
    <message>
        <source>Messages this task was dispatched on</source>
        <translation>派发这个任务所依据的消息</translation>
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
        <source>Show Markdown source</source>
        <translation>显示 Markdown 源文本</translation>
    </message>
    <message>
        <source>Network access for commands</source>
        <translation>命令的网络访问</translation>
    </message>
    <message>
        <source>New task line</source>
        <translation>新建任务线</translation>
    </message>
    <message>
        <source>Archive task line</source>
        <translation>归档任务线</translation>
    </message>
    <message>
        <source>Change folder</source>
        <translation>更改工作目录</translation>
    </message>
    <message>
        <source>Recreate folder</source>
        <translation>重建工作目录</translation>
    </message>
    <message>
        <source>Show archived task lines</source>
        <translation>显示已归档的任务线</translation>
    </message>
    <message>
        <source>Line status</source>
        <translation>任务线状态</translation>
    </message>
    <message>
        <source>Session key</source>
        <translation>会话键</translation>
    </message>
    <message>
        <source>Folder path</source>
        <translation>工作目录路径</translation>
    </message>
    <message>
        <source>About what this task was dispatched on</source>
        <translation>关于这个任务派发时所依据的内容</translation>
    </message>
</context>
<context>
    <name>KeyboardSetup</name>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Archive task line</source>
        <translation>归档任务线</translation>
    </message>
    <message>
        <source>Filter task lines</source>
        <translation>筛选任务线</translation>
    </message>
    <message>
        <source>Enter sends (Shift+Enter adds a line)</source>
        <translation>Enter 发送（Shift+Enter 换行）</translation>
    </message>
    <message>
        <source>{name} list</source>
        <translation>{name} 列表</translation>
    </message>
    <message>
        <source>Choices</source>
        <translation>选项</translation>
    </message>
</context>
<context>
    <name>LanguageMenu</name>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>The language could not be saved: {problem}</source>
        <translation>无法保存语言设置：{problem}</translation>
    </message>
    <message>
        <source>XWorkmate already speaks this language.</source>
        <translation>XWorkmate 已经在使用这种语言。</translation>
    </message>
    <message>
        <source>The language changes when XWorkmate starts again.</source>
        <translation>语言将在 XWorkmate 下次启动时切换。</translation>
    </message>
</context>
<context>
    <name>LineSettingsActions</name>
    <message>
        <source>Permission not changed — {error}</source>
        <translation>权限未更改：{error}</translation>
    </message>
    <message>
        <source>Network setting not changed — {error}</source>
        <translation>网络设置未更改：{error}</translation>
    </message>
    <message>
        <source>Skills not read — {error}</source>
        <translation>未能读取技能 — {error}</translation>
    </message>
    <message>
        <source>Skills not changed — {error}</source>
        <translation>技能未更改 — {error}</translation>
    </message>
    <message>
        <source>Provider not changed — {error}</source>
        <translation>未更改模型服务 — {error}</translation>
    </message>
    <message>
        <source>Default — {provider}</source>
        <translation>默认——{provider}</translation>
    </message>
    <message>
        <source>This line runs an external agent (ACP); it does not use these providers</source>
        <translation>这条任务线运行外部智能体（ACP），不使用这些模型服务</translation>
    </message>
    <message>
        <source>The provider for the next turn; Default uses the default provider</source>
        <translation>下一轮次使用的模型服务；「默认」即使用默认模型服务</translation>
    </message>
    <message>
        <source>Could not read the providers — {error}</source>
        <translation>无法读取模型服务：{error}</translation>
    </message>
</context>
<context>
    <name>LongLines</name>
    <message numerus="yes">
        <source>… %n more character(s) on this line, not shown</source>
        <translation>
            <numerusform>… 此行还有 %n 个字符未显示</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>… the rest of this line (longer than %n character(s)) is not shown</source>
        <translation>
            <numerusform>… 此行超过 %n 个字符，其余部分未显示</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>That did not work — {error}</source>
        <translation>操作没有成功：{error}</translation>
    </message>
    <message>
        <source>A task line changed but could not be read — {error}</source>
        <translation>一条任务线有变化，但无法读取：{error}</translation>
    </message>
    <message>
        <source>About XWorkmate</source>
        <translation>关于 XWorkmate</translation>
    </message>
</context>
<context>
    <name>MarkdownStyle</name>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
</context>
<context>
    <name>McpPicker</name>
    <message>
        <source>The MCP servers this line&apos;s agent gets (Settings → MCP servers)</source>
        <translation>这条任务线的智能体可用的 MCP 服务器（设置 → MCP 服务器）</translation>
    </message>
    <message>
        <source>No MCP servers — add one in Settings → MCP servers</source>
        <translation>没有 MCP 服务器——请在“设置 → MCP 服务器”中添加</translation>
    </message>
</context>
<context>
    <name>McpServersDialog</name>
    <message>
        <source>MCP servers</source>
        <translation>MCP 服务器</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Transport</source>
        <translation>传输方式</translation>
    </message>
    <message>
        <source>Command or URL</source>
        <translation>命令或 URL</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>stdio: mcp-files --root .</source>
        <translation>stdio：mcp-files --root .</translation>
    </message>
    <message>
        <source>http: https://example.org/mcp (only agents that take http)</source>
        <translation>http：https://example.org/mcp（仅限支持 http 的智能体）</translation>
    </message>
    <message>
        <source>TOKEN=env:MY_TOKEN (references, read when the agent starts; headers for a URL)</source>
        <translation>TOKEN=env:MY_TOKEN（引用，在智能体启动时读取；URL 服务器作为请求头）</translation>
    </message>
    <message>
        <source>Environment / headers</source>
        <translation>环境变量 / 请求头</translation>
    </message>
    <message>
        <source>give a command (stdio) or a URL (http or sse), one of them</source>
        <translation>请填写命令（stdio）或 URL（http 或 sse），二者选一</translation>
    </message>
    <message>
        <source>medical, legal (a category line only gets tagged servers)</source>
        <translation>medical, legal（有类别的任务线只会得到带相应标签的服务器）</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <source>Not added — {reason}</source>
        <translation>未添加——{reason}</translation>
    </message>
    <message>
        <source>Choose a server to remove.</source>
        <translation>请选择要移除的服务器。</translation>
    </message>
</context>
<context>
    <name>MessageListModel</name>
    <message>
        <source>hidden from the model</source>
        <translation>对模型隐藏</translation>
    </message>
    <message>
        <source>(this message is no longer available)</source>
        <translation>（这条消息已不可用）</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Notice</source>
        <translation>通知</translation>
    </message>
    <message>
        <source>from you</source>
        <translation>来自你</translation>
    </message>
    <message>
        <source>from the agent</source>
        <translation>来自智能体</translation>
    </message>
    <message>
        <source>from a tool</source>
        <translation>来自工具</translation>
    </message>
    <message>
        <source>from XWorkmate</source>
        <translation>来自 XWorkmate</translation>
    </message>
    <message>
        <source>from the dispatching agent</source>
        <translation>来自派发任务的智能体</translation>
    </message>
    <message>
        <source>held back</source>
        <translation>已隔离</translation>
    </message>
    <message>
        <source>Request</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Agent (thinking)</source>
        <translation>智能体（思考）</translation>
    </message>
    <message>
        <source>Agent&apos;s plan</source>
        <translation>智能体的计划</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <source>image</source>
        <translation>图片</translation>
    </message>
    <message>
        <source>text file</source>
        <translation>文本文件</translation>
    </message>
    <message numerus="yes">
        <source>… (%n more character(s) not shown in the list)</source>
        <translation>
            <numerusform>…（还有 %n 个字符未在列表中显示）</numerusform>
        </translation>
    </message>
    <message>
        <source>message {id}</source>
        <translation>消息 {id}</translation>
    </message>
    <message>
        <source>hidden from the model: it sees only a placeholder naming this message</source>
        <translation>对模型隐藏：模型只能看到指代这条消息的占位符</translation>
    </message>
    <message>
        <source>click to fold or unfold</source>
        <translation>点击折叠或展开</translation>
    </message>
    <message>
        <source>the agent&apos;s reasoning; click to show or hide it</source>
        <translation>智能体的推理过程；点击显示或隐藏</translation>
    </message>
    <message>
        <source>Tool · running</source>
        <translation>工具 · 运行中</translation>
    </message>
    <message>
        <source>Agent · streaming…</source>
        <translation>智能体 · 输出中…</translation>
    </message>
    <message>
        <source>Agent · working…</source>
        <translation>智能体 · 工作中…</translation>
    </message>
    <message>
        <source>Not stored yet: the turn is still running</source>
        <translation>尚未保存：本轮次仍在运行</translation>
    </message>
</context>
<context>
    <name>MessagePane</name>
    <message>
        <source>No messages yet. Type a request below and press Enter.</source>
        <translation>还没有消息。在下方输入请求，然后按 Enter。</translation>
    </message>
    <message>
        <source>No agent provider is configured, so nothing will run. &lt;a href=&quot;settings:providers&quot;&gt;Set up a provider…&lt;/a&gt;</source>
        <translation>尚未配置智能体的模型服务，因此什么都不会运行。&lt;a href=&quot;settings:providers&quot;&gt;设置模型服务…&lt;/a&gt;</translation>
    </message>
    <message>
        <source>Default provider</source>
        <translation>默认模型服务</translation>
    </message>
    <message>
        <source>Ask before edits</source>
        <translation>编辑前询问</translation>
    </message>
    <message>
        <source>Ask before every edit and every command</source>
        <translation>每次编辑和每条命令前都询问</translation>
    </message>
    <message>
        <source>Auto-edit</source>
        <translation>自动编辑</translation>
    </message>
    <message>
        <source>Edits inside the folder run at once; commands still ask</source>
        <translation>工作目录内的编辑立即执行；命令仍会询问</translation>
    </message>
    <message>
        <source>Full access</source>
        <translation>完全访问</translation>
    </message>
    <message>
        <source>Edits and commands run without asking</source>
        <translation>编辑和命令都无需询问直接运行</translation>
    </message>
    <message>
        <source>Click to dismiss</source>
        <translation>点击关闭</translation>
    </message>
    <message>
        <source>Waiting for you — {explanation}.</source>
        <translation>等待你处理——{explanation}。</translation>
    </message>
    <message>
        <source>Commands run without network; an ACP agent reaches only its model hosts</source>
        <translation>命令在无网络的环境中运行；ACP 智能体只能访问它的模型主机</translation>
    </message>
    <message>
        <source>Allow-list</source>
        <translation>允许列表</translation>
    </message>
    <message>
        <source>Only the hosts listed for this line, through XWorkmate&apos;s proxy</source>
        <translation>只允许为这条任务线列出的主机，经由 XWorkmate 的代理</translation>
    </message>
    <message>
        <source>The whole network, local services included</source>
        <translation>整个网络，包括本机服务</translation>
    </message>
    <message>
        <source>Runnable — the last run failed: {error}</source>
        <translation>可运行——上次运行失败：{error}</translation>
    </message>
    <message>
        <source>Runnable — ready.</source>
        <translation>可运行——已就绪。</translation>
    </message>
    <message>
        <source>Running — {explanation}. Stop (Esc) interrupts it.</source>
        <translation>运行中——{explanation}。按“停止”（Esc）可中断。</translation>
    </message>
    <message>
        <source>Not runnable — {explanation}</source>
        <translation>不可运行——{explanation}</translation>
    </message>
    <message>
        <source>Raw</source>
        <translation>源码</translation>
    </message>
    <message>
        <source>Show the agent&apos;s answers as plain Markdown source instead of rendered</source>
        <translation>以 Markdown 源码显示智能体的回答，而不是渲染后的样子</translation>
    </message>
    <message>
        <source>What the agent may do on this line without asking</source>
        <translation>智能体在这条任务线上无需询问即可做的事</translation>
    </message>
    <message>
        <source>What network this line&apos;s commands and agent reach: none, only the hosts on its allow-list, or all</source>
        <translation>这条任务线的命令和智能体可以访问的网络：不联网、只允许列表中的主机，或全部</translation>
    </message>
    <message>
        <source>The provider for the next turn; Default uses the default provider</source>
        <translation>下一轮次使用的模型服务；“默认”即使用默认模型服务</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop this line&apos;s running turn (Esc); what streamed so far is kept</source>
        <translation>停止这条任务线正在运行的轮次（Esc）；已输出的内容会保留</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Send to this task line (Enter, or Ctrl+Enter)</source>
        <translation>发送到这条任务线（Enter 或 Ctrl+Enter）</translation>
    </message>
    <message>
        <source>Execution mode</source>
        <translation>执行模式</translation>
    </message>
    <message>
        <source>Permission</source>
        <translation>权限</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>模型服务</translation>
    </message>
    <message>
        <source>git worktree of {repo}, on branch {branch}</source>
        <translation>{repo} 的 git 工作树，分支 {branch}</translation>
    </message>
    <message>
        <source>Copied the session key {key}</source>
        <translation>已复制会话键 {key}</translation>
    </message>
    <message>
        <source>Network on</source>
        <translation>网络开启</translation>
    </message>
    <message>
        <source>Network off</source>
        <translation>网络关闭</translation>
    </message>
    <message>
        <source>Network for commands</source>
        <translation>命令的网络访问</translation>
    </message>
    <message>
        <source>tags: {tags}</source>
        <translation>标签：{tags}</translation>
    </message>
</context>
<context>
    <name>MessageTextView</name>
    <message>
        <source>Message text</source>
        <translation>消息文本</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy as Markdown</source>
        <translation>复制为 Markdown</translation>
    </message>
    <message>
        <source>Select all</source>
        <translation>全选</translation>
    </message>
</context>
<context>
    <name>ModePicker</name>
    <message>
        <source>Built-in agent</source>
        <translation>内置智能体</translation>
    </message>
    <message>
        <source>No agent CLIs — add one in Settings → Providers</source>
        <translation>没有智能体 CLI——请在「设置 → 模型服务」中添加</translation>
    </message>
    <message>
        <source>The built-in agent: every model call goes through the providers and the category router</source>
        <translation>内置智能体：每次模型调用都经过模型服务和类别路由</translation>
    </message>
    <message>
        <source>Not available: this line carries the category “{category}”. Its content may only reach providers tagged with it, and agent CLIs do not go through the category router.</source>
        <translation>不可用：这条任务线带有类别「{category}」。它的内容只能发往标有该类别的模型服务，而智能体 CLI 不经过类别路由。</translation>
    </message>
    <message>
        <source>Execution mode</source>
        <translation>执行方式</translation>
    </message>
    <message>
        <source>Who runs this line: the built-in agent, or an external agent CLI over ACP</source>
        <translation>由谁运行这条任务线：内置智能体，或通过 ACP 连接的外部智能体 CLI</translation>
    </message>
    <message>
        <source>Settings → Providers → Find agent CLIs on PATH, or add one by hand</source>
        <translation>设置 → 模型服务 → 在 PATH 中查找智能体 CLI，或手动添加</translation>
    </message>
    <message>
        <source>{name} (ACP)</source>
        <translation>{name}（ACP）</translation>
    </message>
    <message>
        <source>Run this line with {name} over ACP: {command}</source>
        <translation>通过 ACP 用 {name} 运行这条任务线：{command}</translation>
    </message>
    <message>
        <source>{name} (ACP — not configured)</source>
        <translation>{name}（ACP——未配置）</translation>
    </message>
    <message>
        <source>This agent was removed from Settings → Providers; choose another</source>
        <translation>这个智能体已从「设置 → 模型服务」中移除；请另选一个</translation>
    </message>
</context>
<context>
    <name>NeedsYou</name>
    <message>
        <source>Desktop &amp;notifications</source>
        <translation>桌面通知(&amp;N)</translation>
    </message>
    <message>
        <source>Tell me on the desktop when a line needs approval, fails or finishes while I look elsewhere (shown through: {backend})</source>
        <translation>当我在看别处时，如果某条任务线需要审批、失败或完成，就在桌面上告诉我（通知方式：{backend}）</translation>
    </message>
    <message>
        <source>Needs you</source>
        <translation>需要你处理</translation>
    </message>
    <message>
        <source>Nothing needs you right now (Ctrl+J finds the next line that does).</source>
        <translation>现在没有需要你处理的事（Ctrl+J 可跳到下一条需要你处理的任务线）。</translation>
    </message>
    <message>
        <source>Mute notifications</source>
        <translation>静音通知</translation>
    </message>
    <message>
        <source>No desktop notifications from this line; its badge still shows in the list</source>
        <translation>不再为这条任务线发出桌面通知；列表中仍会显示它的标记</translation>
    </message>
</context>
<context>
    <name>NetworkDeniedBar</name>
    <message>
        <source>Allow this host for this line</source>
        <translation>为这条任务线允许此主机</translation>
    </message>
    <message>
        <source>The agent tried to reach {host}, which is not on this line&apos;s network allow-list.</source>
        <translation>智能体试图访问 {host}，但它不在这条任务线的网络允许列表中。</translation>
    </message>
</context>
<context>
    <name>Notifier</name>
    <message>
        <source>“{title}” waits for your approval.</source>
        <translation>「{title}」在等待你的审批。</translation>
    </message>
    <message>
        <source>“{title}” failed — its run stopped with an error.</source>
        <translation>「{title}」失败了——运行因出错而停止。</translation>
    </message>
    <message>
        <source>“{title}” finished — a new answer to read.</source>
        <translation>「{title}」已完成——有新的回答可以查看。</translation>
    </message>
    <message>
        <source>{title} ({count})</source>
        <translation>{title}（{count}）</translation>
    </message>
    <message>
        <source>{title} — {app}</source>
        <translation>{title} — {app}</translation>
    </message>
    <message>
        <source>({count}) {title}</source>
        <translation>（{count}）{title}</translation>
    </message>
    <message>
        <source>Open the line</source>
        <translation>打开任务线</translation>
    </message>
    <message numerus="yes">
        <source>%n lines need you.</source>
        <translation>
            <numerusform>有 %n 条任务线需要你处理。</numerusform>
        </translation>
    </message>
    <message>
        <source>{app}: {title}</source>
        <translation>{app}：{title}</translation>
    </message>
</context>
<context>
    <name>OpeningPage</name>
    <message>
        <source>Opening the database…</source>
        <translation>正在打开数据库…</translation>
    </message>
    <message>
        <source>Opening the database… your message is sent once it is open.</source>
        <translation>正在打开数据库……打开后即发送你的消息。</translation>
    </message>
    <message>
        <source>Type a request for the line selected on the left: it goes there once the window is ready ({keys})</source>
        <translation>为左侧选中的任务线输入请求：窗口就绪后即送往该线（{keys}）</translation>
    </message>
    <message>
        <source>Type a request: it goes to the line the window opens on, once it is ready ({keys})</source>
        <translation>输入请求：窗口就绪后送往窗口打开的任务线（{keys}）</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>The database did not open — {error}</source>
        <translation>数据库未能打开：{error}</translation>
    </message>
</context>
<context>
    <name>PaneLayout</name>
    <message>
        <source>task lines</source>
        <translation>任务线</translation>
    </message>
    <message>
        <source>workspace</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>Show {pane}</source>
        <translation>显示 {pane}</translation>
    </message>
    <message>
        <source>Show or hide the {pane} pane ({keys})</source>
        <translation>显示或隐藏 {pane} 窗格（{keys}）</translation>
    </message>
    <message>
        <source>Show or hide the {pane}</source>
        <translation>显示或隐藏 {pane}</translation>
    </message>
</context>
<context>
    <name>ProviderSettingsDialog</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>基础 URL</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>Remove provider</source>
        <translation>移除模型服务</translation>
    </message>
    <message>
        <source>Providers — XWorkmate</source>
        <translation>模型服务 — XWorkmate</translation>
    </message>
    <message>
        <source>No provider yet. Add one, or detect a local server (Ollama, LM Studio).</source>
        <translation>还没有模型服务。请添加一个，或检测本机服务器（Ollama、LM Studio）。</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Detect local servers</source>
        <translation>检测本机服务器</translation>
    </message>
    <message>
        <source>Ask 127.0.0.1:11434 (Ollama) and 127.0.0.1:1234 (LM Studio) for their models</source>
        <translation>向 127.0.0.1:11434（Ollama）和 127.0.0.1:1234（LM Studio）查询可用模型</translation>
    </message>
    <message>
        <source>Use this server…</source>
        <translation>使用这个服务器…</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>模型服务</translation>
    </message>
    <message>
        <source>openrouter, ollama, work-vllm … (no spaces)</source>
        <translation>openrouter、ollama、work-vllm…（不含空格）</translation>
    </message>
    <message>
        <source>Fetch models</source>
        <translation>获取模型列表</translation>
    </message>
    <message>
        <source>Ask the base URL which models it offers (GET /models)</source>
        <translation>向基础 URL 查询它提供哪些模型（GET /models）</translation>
    </message>
    <message>
        <source>categories this provider may serve, comma-separated (e.g. medical)</source>
        <translation>这个模型服务可以处理的类别，用逗号分隔（例如 medical）</translation>
    </message>
    <message>
        <source>Use when no provider is picked</source>
        <translation>未选择模型服务时使用</translation>
    </message>
    <message>
        <source>The model takes images (vision)</source>
        <translation>模型可接收图片（视觉）</translation>
    </message>
    <message>
        <source>environment variable holding the key, e.g. OPENROUTER_API_KEY</source>
        <translation>存放密钥的环境变量，例如 OPENROUTER_API_KEY</translation>
    </message>
    <message>
        <source>or type the key: it goes to the OS keyring, never the database</source>
        <translation>或直接输入密钥：它会存入系统钥匙串，绝不写入数据库</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Base URL:</source>
        <translation>基础 URL：</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>Tags:</source>
        <translation>标签：</translation>
    </message>
    <message>
        <source>API key variable:</source>
        <translation>API 密钥变量：</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API 密钥：</translation>
    </message>
    <message>
        <source>{agent} (ACP agent)</source>
        <translation>{agent}（ACP 智能体）</translation>
    </message>
    <message>
        <source>(ACP agent)</source>
        <translation>（ACP 智能体）</translation>
    </message>
    <message>
        <source>default: {folders}</source>
        <translation>默认：{folders}</translation>
    </message>
    <message>
        <source>none: only the line&apos;s folder is writable</source>
        <translation>无：只有任务线的工作目录可写</translation>
    </message>
    <message>
        <source>Save agent</source>
        <translation>保存智能体</translation>
    </message>
    <message>
        <source>Add agent</source>
        <translation>添加智能体</translation>
    </message>
    <message>
        <source>Remove the provider {name}? Lines that used it fall back to the default provider.</source>
        <translation>要移除模型服务 {name} 吗？原先使用它的任务线将改用默认模型服务。</translation>
    </message>
    <message>
        <source>Removed {name}.</source>
        <translation>已移除 {name}。</translation>
    </message>
    <message>
        <source>Edit {name}</source>
        <translation>编辑 {name}</translation>
    </message>
    <message>
        <source>Add a provider</source>
        <translation>添加模型服务</translation>
    </message>
    <message>
        <source>a key is in the OS keyring; type a new one to replace it</source>
        <translation>系统钥匙串中已有密钥；输入新密钥即可替换</translation>
    </message>
    <message>
        <source>the name must not be empty</source>
        <translation>名称不能为空</translation>
    </message>
    <message>
        <source>Saved {name}, but the API key was not stored: {reason}</source>
        <translation>已保存 {name}，但 API 密钥未能存入：{reason}</translation>
    </message>
    <message>
        <source>Saved {name} ({model} at {base_url}).</source>
        <translation>已保存 {name}（{base_url} 上的 {model}）。</translation>
    </message>
    <message>
        <source>type the base URL first, e.g. http://127.0.0.1:11434/v1</source>
        <translation>请先输入基础 URL，例如 http://127.0.0.1:11434/v1</translation>
    </message>
    <message>
        <source>Asking {base_url} for its models…</source>
        <translation>正在向 {base_url} 查询模型…</translation>
    </message>
    <message>
        <source>could not list models at {base_url}: {reason}</source>
        <translation>无法列出 {base_url} 上的模型：{reason}</translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) offered.</source>
        <translation>
            <numerusform>提供 %n 个模型。</numerusform>
        </translation>
    </message>
    <message>
        <source>The server answered but offers no models.</source>
        <translation>服务器有响应，但没有提供模型。</translation>
    </message>
    <message>
        <source>Looking for local servers…</source>
        <translation>正在查找本机服务器…</translation>
    </message>
    <message numerus="yes">
        <source>{name} at {url} — %n model(s)</source>
        <translation>
            <numerusform>{url} 上的 {name}——%n 个模型</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n local server(s) answered.</source>
        <translation>
            <numerusform>%n 个本机服务器有响应。</numerusform>
        </translation>
    </message>
    <message>
        <source>No local server answered (Ollama on 127.0.0.1:11434, LM Studio on :1234).</source>
        <translation>没有本机服务器响应（Ollama 在 127.0.0.1:11434，LM Studio 在 :1234）。</translation>
    </message>
    <message>
        <source>Looking for agent CLIs on PATH…</source>
        <translation>正在 PATH 中查找智能体 CLI…</translation>
    </message>
    <message>
        <source>Could not look for agent CLIs: {reason}</source>
        <translation>无法查找智能体 CLI：{reason}</translation>
    </message>
    <message>
        <source>{name} was not added: {reason}</source>
        <translation>未添加 {name}：{reason}</translation>
    </message>
    <message>
        <source>Saved {name}: {command}. Pick “{name} (ACP)” in a line&apos;s mode picker.</source>
        <translation>已保存 {name}：{command}。请在任务线的模式选择器中选“{name} (ACP)”。</translation>
    </message>
    <message>
        <source>Added {name}: {command}. Pick “{name} (ACP)” in a line&apos;s mode picker.</source>
        <translation>已添加 {name}：{command}。请在任务线的模式选择器中选“{name} (ACP)”。</translation>
    </message>
    <message>
        <source>That did not work: {reason}</source>
        <translation>操作没有成功：{reason}</translation>
    </message>
</context>
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
        <source>Change this follow-up&apos;s text</source>
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
        <source>Give it to the running turn at its next safe point (a native agent&apos;s next step; an ACP agent&apos;s next prompt), ahead of the rest of the queue</source>
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
    <name>RenderingText</name>
    <message>
        <source>Read {where}</source>
        <translation>读取了 {where}</translation>
    </message>
    <message>
        <source>Listed {where}</source>
        <translation>列出了 {where}</translation>
    </message>
    <message>
        <source>Searched for {where}</source>
        <translation>搜索了 {where}</translation>
    </message>
    <message>
        <source>Allow this host for this line</source>
        <translation>为这条任务线允许此主机</translation>
    </message>
    <message>
        <source>Reached {host}</source>
        <translation>已访问 {host}</translation>
    </message>
    <message>
        <source>Network refused: {host} — not on this line&apos;s allow-list</source>
        <translation>网络被拒绝：{host}——不在这条任务线的允许列表中</translation>
    </message>
    <message>
        <source>diff +{added} −{removed} — click to show</source>
        <translation>差异 +{added} −{removed}——点击显示</translation>
    </message>
    <message>
        <source>click to collapse</source>
        <translation>点击收起</translation>
    </message>
    <message numerus="yes">
        <source>… %n more line(s) not shown here</source>
        <translation>
            <numerusform>…还有 %n 行未在此显示</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>… %n more line(s) — click to expand</source>
        <translation>
            <numerusform>…还有 %n 行——点击展开</numerusform>
        </translation>
    </message>
    <message>
        <source>Wrote {path}</source>
        <translation>写入了 {path}</translation>
    </message>
    <message>
        <source>Edited {path}</source>
        <translation>编辑了 {path}</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>成功</translation>
    </message>
    <message numerus="yes">
        <source>%n line(s)</source>
        <translation>
            <numerusform>%n 行</numerusform>
        </translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Read skill {where}</source>
        <translation>已读取技能 {where}</translation>
    </message>
    <message>
        <source>you rejected this</source>
        <translation>你拒绝了此操作</translation>
    </message>
    <message>
        <source>the write was refused</source>
        <translation>写入被拒绝</translation>
    </message>
    <message>
        <source>refused: outside the line&apos;s folder</source>
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
        <source>refused: not a file of the skill</source>
        <translation>已拒绝：不是该技能的文件</translation>
    </message>
    <message>
        <source>the line&apos;s folder is missing</source>
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
        <source>(+%n more line(s))</source>
        <translation>
            <numerusform>（另有 %n 行）</numerusform>
        </translation>
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
    <message>
        <source>ok · {kind}</source>
        <translation>成功 · {kind}</translation>
    </message>
    <message>
        <source>exit {code} · {seconds} s</source>
        <translation>退出码 {code} · {seconds} 秒</translation>
    </message>
    <message>
        <source>running {summary} …</source>
        <translation>运行中：{summary}…</translation>
    </message>
    <message>
        <source>→ calls {names}</source>
        <translation>→ 调用 {names}</translation>
    </message>
    <message>
        <source>(an empty plan)</source>
        <translation>（空计划）</translation>
    </message>
    <message numerus="yes">
        <source>Thinking… (%n word(s) — click to show)</source>
        <translation>
            <numerusform>思考中…（%n 个词——点击显示）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RestoreDialog</name>
    <message>
        <source>Restore files to before turn {turn}</source>
        <translation>把文件恢复到第 {turn} 轮次之前</translation>
    </message>
    <message>
        <source>The line&apos;s folder goes back to how it was before turn {turn}: every file that turn and later turns changed. Nothing in the conversation is deleted, and “Undo restore” brings the files back.</source>
        <translation>任务线的工作目录会回到第 {turn} 轮次之前的样子：该轮次及之后各轮次改动过的每个文件都会恢复。对话中的内容不会被删除，「撤回恢复」可以把文件找回来。</translation>
    </message>
    <message>
        <source>Also fork the line at this turn (the fork&apos;s model does not see later messages)</source>
        <translation>同时在这一轮次分叉任务线（分叉的模型看不到之后的消息）</translation>
    </message>
    <message>
        <source>Even over changes made since the last checkpoint (they are kept: “Undo restore” brings them back)</source>
        <translation>即使覆盖上一个检查点之后的改动也要恢复（这些改动会被保留：「撤回恢复」可以找回它们）</translation>
    </message>
    <message>
        <source>Restore files</source>
        <translation>恢复文件</translation>
    </message>
</context>
<context>
    <name>RunCards</name>
    <message>
        <source>That approval is no longer waiting — {error}</source>
        <translation>那个审批已不在等待：{error}</translation>
    </message>
    <message>
        <source>That question is no longer waiting — {error}</source>
        <translation>该问题已不再等待回答 — {error}</translation>
    </message>
    <message>
        <source>That sign-in is no longer waiting — {error}</source>
        <translation>那个登录请求已不在等待：{error}</translation>
    </message>
    <message>
        <source>{host} was refused: it is not on this line&apos;s network allow-list</source>
        <translation>{host} 被拒绝：它不在这条任务线的网络允许列表中</translation>
    </message>
    <message>
        <source>Host not allowed — {error}</source>
        <translation>未允许该主机 — {error}</translation>
    </message>
    <message>
        <source>Could not read whether the line&apos;s last turn was interrupted — {error}</source>
        <translation>无法读取这条任务线的上一轮是否被中断 — {error}</translation>
    </message>
    <message>
        <source>Not resumed — {error}</source>
        <translation>未能继续 — {error}</translation>
    </message>
</context>
<context>
    <name>SearchAndExport</name>
    <message>
        <source>&amp;Search lines…</source>
        <translation>搜索任务线(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Export…</source>
        <translation>导出(&amp;E)…</translation>
    </message>
    <message>
        <source>Export the shown line and its tasks to Markdown or JSON</source>
        <translation>把当前显示的任务线及其任务导出为 Markdown 或 JSON</translation>
    </message>
    <message>
        <source>Message #{number} is no longer in this line</source>
        <translation>消息 #{number} 已不在这条任务线中</translation>
    </message>
    <message>
        <source>Exporting to {path}…</source>
        <translation>正在导出到 {path}…</translation>
    </message>
    <message>
        <source>Export failed — {error}</source>
        <translation>导出失败：{error}</translation>
    </message>
    <message>
        <source>Exported to {path}</source>
        <translation>已导出到 {path}</translation>
    </message>
</context>
<context>
    <name>SearchPalette</name>
    <message>
        <source>Search every line&apos;s messages, tool output, titles (conf* for prefixes)</source>
        <translation>搜索所有任务线的消息、工具输出和标题（用 conf* 匹配前缀）</translation>
    </message>
    <message>
        <source>Type to search. Enter opens the message; Esc closes.</source>
        <translation>输入即可搜索。Enter 打开消息；Esc 关闭。</translation>
    </message>
    <message>
        <source>Type to search.</source>
        <translation>输入即可搜索。</translation>
    </message>
    <message>
        <source>Searching for {query}…</source>
        <translation>正在搜索 {query}…</translation>
    </message>
    <message>
        <source>Search failed — {error}</source>
        <translation>搜索失败：{error}</translation>
    </message>
    <message>
        <source>No matches for {query}.</source>
        <translation>没有与 {query} 匹配的结果。</translation>
    </message>
    <message numerus="yes">
        <source>%n message(s)</source>
        <translation>
            <numerusform>%n 条消息</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n line(s)</source>
        <translation>
            <numerusform>%n 条任务线</numerusform>
        </translation>
    </message>
    <message>
        <source>{messages} in {lines} (more match: refine the query).</source>
        <translation>{lines} 中共 {messages}（还有更多匹配：请细化搜索词）。</translation>
    </message>
    <message>
        <source>{messages} in {lines}.</source>
        <translation>{lines} 中共 {messages}。</translation>
    </message>
</context>
<context>
    <name>SearchResultsModel</name>
    <message>
        <source> · category {category}</source>
        <translation> · 类别 {category}</translation>
    </message>
    <message>
        <source> · archived</source>
        <translation> · 已归档</translation>
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
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
</context>
<context>
    <name>ShownLine</name>
    <message>
        <source>Cannot show the current line — {error}</source>
        <translation>无法显示当前任务线：{error}</translation>
    </message>
    <message>
        <source>Cannot switch to {key} — {error}; still on {still_on}</source>
        <translation>无法切换到 {key}：{error}；仍停留在 {still_on}</translation>
    </message>
</context>
<context>
    <name>SignInCard</name>
    <message>
        <source>{agent} needs you to sign in before it can work on this line. Choose how:</source>
        <translation>{agent} 需要你先登录，才能处理这条任务线。请选择登录方式：</translation>
    </message>
    <message>
        <source>Opens a sign-in terminal running: {command}</source>
        <translation>打开登录终端运行：{command}</translation>
    </message>
    <message>
        <source>First run in a terminal: {command}</source>
        <translation>先在终端中运行：{command}</translation>
    </message>
    <message>
        <source>Sign in with {method}</source>
        <translation>用 {method} 登录</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Do not sign in now; the turn ends and the line stays usable</source>
        <translation>现在不登录；本轮次结束，任务线仍可使用</translation>
    </message>
</context>
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
    <name>SkillPicker</name>
    <message>
        <source>Search skills</source>
        <translation>搜索技能</translation>
    </message>
    <message>
        <source>person</source>
        <translation>个人</translation>
    </message>
    <message>
        <source>line folder</source>
        <translation>任务线文件夹</translation>
    </message>
    <message>
        <source>{name} (not found)</source>
        <translation>{name}（未找到）</translation>
    </message>
    <message>
        <source>Looking for skills…</source>
        <translation>正在查找技能…</translation>
    </message>
    <message>
        <source>No skills found. A skill is a folder with a SKILL.md in your skills folder.</source>
        <translation>未找到技能。技能是技能文件夹中含有 SKILL.md 的文件夹。</translation>
    </message>
    <message>
        <source>%n folder(s) skipped: not a skill.</source>
        <translation>已跳过 %n 个文件夹：不是技能。</translation>
    </message>
    <message>
        <source>Skills</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>Skills ({count})</source>
        <translation>技能（{count}）</translation>
    </message>
    <message>
        <source>Skills selected for this line: {names}</source>
        <translation>这条任务线选用的技能：{names}</translation>
    </message>
    <message>
        <source>Choose the skills this line&apos;s agent may use</source>
        <translation>选择这条任务线的智能体可以使用的技能</translation>
    </message>
</context>
<context>
    <name>SlashCompleter</name>
    <message>
        <source>Skill: {description}</source>
        <translation>技能：{description}</translation>
    </message>
</context>
<context>
    <name>StoreOp</name>
    <message>
        <source>Could not {what} — {error}</source>
        <translation>无法{what} — {error}</translation>
    </message>
    <message>
        <source>read the providers</source>
        <translation>读取提供方</translation>
    </message>
    <message>
        <source>save the provider {name}</source>
        <translation>保存提供方 {name}</translation>
    </message>
    <message>
        <source>remove the provider {name}</source>
        <translation>删除提供方 {name}</translation>
    </message>
    <message>
        <source>read the MCP servers</source>
        <translation>读取 MCP 服务器</translation>
    </message>
    <message>
        <source>add the MCP server {name}</source>
        <translation>添加 MCP 服务器 {name}</translation>
    </message>
    <message>
        <source>remove the MCP server {name}</source>
        <translation>删除 MCP 服务器 {name}</translation>
    </message>
    <message>
        <source>save the setting</source>
        <translation>保存设置</translation>
    </message>
    <message>
        <source>save the window layout</source>
        <translation>保存窗口布局</translation>
    </message>
    <message>
        <source>change the line&apos;s notifications</source>
        <translation>更改该任务线的通知</translation>
    </message>
</context>
<context>
    <name>TaskLineModel</name>
    <message>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>category {category}</source>
        <translation>类别 {category}</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>key: {key}</source>
        <translation>会话键：{key}</translation>
    </message>
    <message>
        <source>folder: {path}</source>
        <translation>工作目录：{path}</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>{kind} of: {origin}</source>
        <translation>{kind}，来自：{origin}</translation>
    </message>
    <message>
        <source>category: {category}</source>
        <translation>类别：{category}</translation>
    </message>
    <message>
        <source>category: none (normal content)</source>
        <translation>类别：无（普通内容）</translation>
    </message>
    <message>
        <source>status: {status} — {explanation}</source>
        <translation>状态：{status}——{explanation}</translation>
    </message>
    <message>
        <source>needs you: {reason}</source>
        <translation>需要你处理：{reason}</translation>
    </message>
</context>
<context>
    <name>TaskLinePane</name>
    <message>
        <source>Task lines</source>
        <translation>任务线</translation>
    </message>
    <message>
        <source>New task line</source>
        <translation>新建任务线</translation>
    </message>
    <message>
        <source>Create a task line with its own folder (Ctrl+N)</source>
        <translation>新建一条拥有自己工作目录的任务线（Ctrl+N）</translation>
    </message>
    <message>
        <source>Archive</source>
        <translation>归档</translation>
    </message>
    <message>
        <source>Archive the current task line (it can be unarchived later)</source>
        <translation>归档当前任务线（之后可以取消归档）</translation>
    </message>
    <message>
        <source>Filter by title or key…</source>
        <translation>按标题或会话键筛选…</translation>
    </message>
    <message>
        <source>Show archived</source>
        <translation>显示已归档</translation>
    </message>
    <message>
        <source>Needs you</source>
        <translation>需要你处理</translation>
    </message>
    <message>
        <source>Only the lines waiting for you — approvals, sign-ins, failures, unread answers — longest waiting first (Ctrl+J jumps to the next one)</source>
        <translation>只显示等待你处理的任务线——审批、登录、失败、未读回答——等待最久的排在最前（Ctrl+J 跳到下一条）</translation>
    </message>
    <message>
        <source>Nothing needs you right now.</source>
        <translation>现在没有需要你处理的事。</translation>
    </message>
    <message>
        <source>No task lines match “{filter}”.</source>
        <translation>没有与「{filter}」匹配的任务线。</translation>
    </message>
    <message>
        <source>No task lines to show. Press “New task line” (Ctrl+N) to start one.</source>
        <translation>没有可显示的任务线。按「新建任务线」（Ctrl+N）开始一条。</translation>
    </message>
</context>
<context>
    <name>TaskLines</name>
    <message>
        <source>⚠ needs binding</source>
        <translation>⚠ 需要绑定</translation>
    </message>
    <message>
        <source>⚠ needs folder</source>
        <translation>⚠ 需要工作目录</translation>
    </message>
    <message>
        <source>● running</source>
        <translation>● 运行中</translation>
    </message>
    <message>
        <source>archived</source>
        <translation>已归档</translation>
    </message>
    <message>
        <source>runnable</source>
        <translation>可运行</translation>
    </message>
    <message>
        <source>needs_binding</source>
        <translation>需要绑定</translation>
    </message>
    <message>
        <source>needs_workspace</source>
        <translation>需要工作目录</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>branch</source>
        <translation>分支</translation>
    </message>
    <message>
        <source>fork</source>
        <translation>分叉</translation>
    </message>
    <message>
        <source>clone</source>
        <translation>克隆</translation>
    </message>
    <message>
        <source>side chat</source>
        <translation>旁聊</translation>
    </message>
</context>
<context>
    <name>TaskListActions</name>
    <message>
        <source>Unarchive</source>
        <translation>取消归档</translation>
    </message>
    <message>
        <source>Archive</source>
        <translation>归档</translation>
    </message>
    <message>
        <source>Could not read the task lines — {error}</source>
        <translation>无法读取任务线：{error}</translation>
    </message>
    <message>
        <source>Could not create a task line — {error}</source>
        <translation>无法创建任务线：{error}</translation>
    </message>
    <message>
        <source>Could not archive the line — {error}</source>
        <translation>无法归档任务线：{error}</translation>
    </message>
    <message>
        <source>Could not unarchive the line — {error}</source>
        <translation>无法取消归档任务线：{error}</translation>
    </message>
    <message>
        <source>Could not rename the line — {error}</source>
        <translation>无法重命名任务线：{error}</translation>
    </message>
    <message>
        <source>Category not changed — {error}</source>
        <translation>类别未更改：{error}</translation>
    </message>
    <message>
        <source>Could not fork the line — {error}</source>
        <translation>无法分叉任务线：{error}</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Set category…</source>
        <translation>设置类别…</translation>
    </message>
    <message>
        <source>Relabel this line and everything it dispatched; empty means normal content</source>
        <translation>重新标记这条任务线及其派发的全部任务；留空表示普通内容</translation>
    </message>
    <message>
        <source>Fork</source>
        <translation>分叉</translation>
    </message>
    <message>
        <source>Copy session key</source>
        <translation>复制会话键</translation>
    </message>
</context>
<context>
    <name>ThemeFollower</name>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
</context>
<context>
    <name>UsageMeter</name>
    <message>
        <source>Usage</source>
        <translation>用量</translation>
    </message>
    <message>
        <source>Context: {used} of {size} tokens</source>
        <translation>上下文：已用 {used} 个 token（共 {size} 个）</translation>
    </message>
    <message>
        <source>Context: {used} tokens (size not reported)</source>
        <translation>上下文：已用 {used} 个 token（未报告总量）</translation>
    </message>
    <message>
        <source>Tokens in: {tokens_in}, out: {tokens_out}</source>
        <translation>token 输入：{tokens_in}，输出：{tokens_out}</translation>
    </message>
    <message>
        <source>not reported</source>
        <translation>未报告</translation>
    </message>
    <message>
        <source>Cost: {cost}</source>
        <translation>费用：{cost}</translation>
    </message>
</context>
<context>
    <name>WindowChrome</name>
    <message>
        <source>&amp;New task line</source>
        <translation>新建任务线(&amp;N)</translation>
    </message>
    <message>
        <source>New task line in a git &amp;worktree…</source>
        <translation>在 Git 工作树中新建任务线(&amp;W)…</translation>
    </message>
    <message>
        <source>A task line in its own git worktree of a repository, on a new branch</source>
        <translation>一条拥有自己 Git 工作树的任务线，位于仓库的新分支上</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;About XWorkmate</source>
        <translation>关于 XWorkmate(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Providers…</source>
        <translation>模型服务(&amp;P)…</translation>
    </message>
    <message>
        <source>OpenAI-compatible endpoints the agent may use, and their API keys</source>
        <translation>智能体可以使用的兼容 OpenAI 的端点及其 API 密钥</translation>
    </message>
    <message>
        <source>&amp;MCP servers…</source>
        <translation>MCP 服务器(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
</context>
<context>
    <name>WorkspaceActions</name>
    <message>
        <source>Folder not changed — {error}</source>
        <translation>工作目录未更改：{error}</translation>
    </message>
    <message>
        <source>Could not recreate the folder — {error}</source>
        <translation>无法重建工作目录：{error}</translation>
    </message>
    <message>
        <source>Could not read what this task was dispatched on — {error}</source>
        <translation>无法读取这个任务派发时所依据的内容：{error}</translation>
    </message>
</context>
<context>
    <name>WorkspacePane</name>
    <message>
        <source>{size} bytes</source>
        <translation>{size} 字节</translation>
    </message>
    <message>
        <source>{name}: this file no longer exists</source>
        <translation>{name}：这个文件已不存在</translation>
    </message>
    <message>
        <source>{name}: cannot read it ({error})</source>
        <translation>{name}：无法读取（{error}）</translation>
    </message>
    <message>
        <source>{name}/ is a folder; select a file to preview it</source>
        <translation>{name}/ 是一个文件夹；请选择一个文件来预览</translation>
    </message>
    <message>
        <source>{name}: not a regular file; not previewed</source>
        <translation>{name}：不是普通文件；不预览</translation>
    </message>
    <message>
        <source>{name}: binary file ({size}); not previewed</source>
        <translation>{name}：二进制文件（{size}）；不预览</translation>
    </message>
    <message>
        <source>{name}: binary or not UTF-8 text ({size}); not previewed</source>
        <translation>{name}：二进制或非 UTF-8 文本（{size}）；不预览</translation>
    </message>
    <message>
        <source>{name}: too large to show whole ({size}); the first {limit} shown</source>
        <translation>{name}：太大，无法完整显示（{size}）；只显示前 {limit}</translation>
    </message>
    <message>
        <source>{name} — {size}</source>
        <translation>{name} — {size}</translation>
    </message>
    <message>
        <source>This line has no folder. Choose one with “Change folder…”.</source>
        <translation>这条任务线没有工作目录。请用「更改工作目录…」选择一个。</translation>
    </message>
    <message>
        <source>This line&apos;s folder is missing:
{path}

Choose another with “Change folder…”, or “Recreate folder” to make the line&apos;s own folder again.</source>
        <translation>这条任务线的工作目录不见了：
{path}

请用「更改工作目录…」另选一个，或用「重建工作目录」重新建立这条任务线自己的工作目录。</translation>
    </message>
    <message>
        <source>This is a normal task dispatched from a “{category}” line. It cannot read that line&apos;s messages, so the words it was dispatched on are not shown here or to it: this is on purpose, not a missing record.</source>
        <translation>这是一个从「{category}」任务线派发的普通任务。它不能读取那条任务线的消息，所以派发时所依据的话既不在这里显示，也不给它看：这是有意为之，并非记录缺失。</translation>
    </message>
    <message>
        <source>No human messages were captured when this task was dispatched, so nothing you said backs its writes yet. Send it a follow-up to give it your words.</source>
        <translation>派发这个任务时没有捕获到人的消息，所以它的写入操作还没有你说的话作为依据。给它发送一条跟进，把你的话交给它。</translation>
    </message>
    <message>
        <source>The %n message(s) of yours this task was dispatched on: its authority for writes. Later chat in the dispatcher does not count; a follow-up replaces them.</source>
        <translation>派发这个任务所依据的你的 %n 条消息：它写入操作的授权依据。派发方之后的聊天不算数；跟进会取代这些消息。</translation>
    </message>
    <message>
        <source>(empty)</source>
        <translation>（空）</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>Change folder…</source>
        <translation>更改工作目录…</translation>
    </message>
    <message>
        <source>Bind this task line to another folder</source>
        <translation>把这条任务线绑定到另一个工作目录</translation>
    </message>
    <message>
        <source>Recreate folder</source>
        <translation>重建工作目录</translation>
    </message>
    <message>
        <source>Make this line&apos;s folder again, at the path it is bound to; to use another folder, Change folder…</source>
        <translation>在所绑定的路径上重新建立这条任务线的工作目录；要使用别的目录，请用「更改工作目录…」</translation>
    </message>
    <message>
        <source>Select a file to preview it.</source>
        <translation>选择一个文件来预览。</translation>
    </message>
    <message>
        <source>No file selected.</source>
        <translation>未选择文件。</translation>
    </message>
    <message>
        <source>Dispatched on</source>
        <translation>派发依据</translation>
    </message>
    <message>
        <source>The human messages this task was started on (its dispatch snapshot)</source>
        <translation>启动这个任务所依据的人的消息（它的派发快照）</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Changes</source>
        <translation>改动</translation>
    </message>
    <message>
        <source>(no folder bound)</source>
        <translation>（未绑定工作目录）</translation>
    </message>
    <message>
        <source>Make {path} again and keep the line bound to it</source>
        <translation>重新建立 {path}，并让任务线继续绑定到它</translation>
    </message>
    <message>
        <source>message #{number} · {time}</source>
        <translation>消息 #{number} · {time}</translation>
    </message>
</context>
<context>
    <name>WorktreeLineDialog</name>
    <message>
        <source>New task line in a git worktree</source>
        <translation>在 Git 工作树中新建任务线</translation>
    </message>
    <message>
        <source>The line gets its own git worktree of the repository, on a new branch, in its own folder. Archiving the line removes the worktree and keeps the branch.</source>
        <translation>这条任务线会在自己的目录中得到仓库的一个 Git 工作树，位于新分支上。归档任务线会移除工作树，但保留分支。</translation>
    </message>
    <message>
        <source>a folder in a git repository</source>
        <translation>Git 仓库中的一个文件夹</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>default: xworkmate/&lt;the line&apos;s folder name&gt;</source>
        <translation>默认：xworkmate/&lt;任务线的目录名&gt;</translation>
    </message>
    <message>
        <source>Create line</source>
        <translation>创建任务线</translation>
    </message>
    <message>
        <source>Repository:</source>
        <translation>仓库：</translation>
    </message>
    <message>
        <source>New branch:</source>
        <translation>新分支：</translation>
    </message>
    <message>
        <source>Choose the repository</source>
        <translation>选择仓库</translation>
    </message>
</context>
<context>
    <name>WorktreeLineFlow</name>
    <message>
        <source>Archiving “{title}” removes its git worktree at {path}. The branch {branch} stays in {repo}; unarchiving checks it out there again.</source>
        <translation>归档「{title}」会移除它位于 {path} 的 Git 工作树。分支 {branch} 保留在 {repo} 中；取消归档时会在那里重新检出它。</translation>
    </message>
    <message>
        <source>Archive worktree line</source>
        <translation>归档工作树任务线</translation>
    </message>
    <message>
        <source>Archive and remove worktree</source>
        <translation>归档并移除工作树</translation>
    </message>
    <message>
        <source>Uncommitted changes</source>
        <translation>未提交的改动</translation>
    </message>
    <message>
        <source>Removing the worktree anyway loses those changes. The branch stays.</source>
        <translation>强行移除工作树会丢失这些改动。分支会保留。</translation>
    </message>
    <message>
        <source>Remove anyway</source>
        <translation>仍然移除</translation>
    </message>
    <message>
        <source>Not archived — {error}</source>
        <translation>未归档：{error}</translation>
    </message>
    <message>
        <source>{what} — {error}</source>
        <translation>{what}：{error}</translation>
    </message>
    <message>
        <source>Could not create the worktree line</source>
        <translation>无法创建工作树任务线</translation>
    </message>
    <message>
        <source>Could not archive the line</source>
        <translation>无法归档任务线</translation>
    </message>
    <message>
        <source>Could not unarchive the line</source>
        <translation>无法取消归档任务线</translation>
    </message>
</context>
</TS>
