<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
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
        <source> (mode)</source>
        <translation>（文件模式）</translation>
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
        <translation><numerusform>%n 个文件（+{added} −{removed}）</numerusform></translation>
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
        <source>This line's turns changed {files} in all.</source>
        <translation>这条任务线的各轮次共改动了 {files}。</translation>
    </message>
    <message>
        <source>This line's turns changed no files.</source>
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
        <source>Revert works on one turn's changes: pick “Turn”</source>
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
        <source>The restore was undone: the files are back as they were before it.</source>
        <translation>已撤回恢复：文件回到了恢复之前的样子。</translation>
    </message>
</context>
<context>
    <name>ComposerKeys</name>
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
    <name>EmptyConversation</name>
    <message>
        <source>No messages yet. To get answers, add an agent provider (an OpenAI-compatible endpoint) or use an agent CLI found on your PATH. Until then, what you send is saved but nothing runs.</source>
        <translation>还没有消息。要得到回答，请添加一个智能体模型服务（兼容 OpenAI 的端点），或使用在 PATH 中找到的智能体 CLI。在此之前，你发送的内容会被保存，但不会运行。</translation>
    </message>
    <message>
        <source>Runnable — but no agent provider is configured, so a message is only saved. Add a provider to get answers.</source>
        <translation>可运行——但尚未配置智能体模型服务，消息只会被保存。添加一个模型服务即可得到回答。</translation>
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
        <source>This line carries category {category}: “{title}” and its tasks hold {category} content. The exported file leaves XWorkmate's category rules behind; whoever can read the file can read it. Export anyway?</source>
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
        <source>Files in the line's folder</source>
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
    <name>MainWindow</name>
    <message>
        <source>Send this task a follow-up… (it replaces the words the task acts on)</source>
        <translation>给这个任务发送跟进…（它会取代任务所依据的话）</translation>
    </message>
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
    <message>
        <source>Cannot show the current line — {error}</source>
        <translation>无法显示当前任务线：{error}</translation>
    </message>
    <message>
        <source>Runnable — the last run failed: {error}</source>
        <translation>可运行——上次运行失败：{error}</translation>
    </message>
    <message>
        <source>Unarchive</source>
        <translation>取消归档</translation>
    </message>
    <message>
        <source>Archive</source>
        <translation>归档</translation>
    </message>
    <message>
        <source>Could not read what this task was dispatched on — {error}</source>
        <translation>无法读取这个任务派发时所依据的内容：{error}</translation>
    </message>
    <message>
        <source>A task line changed but could not be read — {error}</source>
        <translation>一条任务线有变化，但无法读取：{error}</translation>
    </message>
    <message>
        <source>Could not create a task line — {error}</source>
        <translation>无法创建任务线：{error}</translation>
    </message>
    <message>
        <source>Cannot switch — {error}; still on {key}</source>
        <translation>无法切换：{error}；仍停留在 {key}</translation>
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
        <source>Could not show the new worktree line — {error}</source>
        <translation>无法显示新的工作树任务线：{error}</translation>
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
    <message>
        <source>Show to the model again</source>
        <translation>重新对模型显示</translation>
    </message>
    <message>
        <source>The model sees this message's text again on this line</source>
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
        <source>Only tool results and agents' messages can be hidden from the model</source>
        <translation>只有工具结果和智能体的消息可以对模型隐藏</translation>
    </message>
    <message>
        <source>Could not change what the model sees — {error}</source>
        <translation>无法更改模型能看到的内容：{error}</translation>
    </message>
    <message>
        <source>That sign-in is no longer waiting — {error}</source>
        <translation>那个登录请求已不在等待：{error}</translation>
    </message>
    <message>
        <source>That approval is no longer waiting — {error}</source>
        <translation>那个审批已不在等待：{error}</translation>
    </message>
    <message>
        <source>Permission not changed — {error}</source>
        <translation>权限未更改：{error}</translation>
    </message>
    <message>
        <source>Network setting not changed — {error}</source>
        <translation>网络设置未更改：{error}</translation>
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
        <source>Cannot show the line's usage — {error}</source>
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
        <source>Not sent — {reason}. Your text is still in the composer.</source>
        <translation>未发送：{reason}。你的文字仍在输入框中。</translation>
    </message>
    <message>
        <source>Follow-up not sent — {reason}. Your text is still in the composer.</source>
        <translation>跟进未发送：{reason}。你的文字仍在输入框中。</translation>
    </message>
    <message>
        <source>Follow-up saved on the task, but no agent provider is configured, so it did not run.</source>
        <translation>跟进已保存在任务上，但尚未配置智能体模型服务，所以没有运行。</translation>
    </message>
    <message>
        <source>Folder not changed — {error}</source>
        <translation>工作目录未更改：{error}</translation>
    </message>
    <message>
        <source>Could not recreate the folder — {error}</source>
        <translation>无法重建工作目录：{error}</translation>
    </message>
    <message>
        <source>About XWorkmate</source>
        <translation>关于 XWorkmate</translation>
    </message>
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
        <source>Cannot open that result — {error}</source>
        <translation>无法打开该结果：{error}</translation>
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
    <message>
        <source>That did not work — {error}</source>
        <translation>操作没有成功：{error}</translation>
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
        <source>{title} — {app}</source>
        <translation>{title} — {app}</translation>
    </message>
    <message>
        <source>Needs you</source>
        <translation>需要你处理</translation>
    </message>
    <message>
        <source>Cannot open that line — {error}</source>
        <translation>无法打开那条任务线：{error}</translation>
    </message>
    <message>
        <source>Nothing needs you right now (Ctrl+J finds the next line that does).</source>
        <translation>现在没有需要你处理的事（Ctrl+J 可跳到下一条需要你处理的任务线）。</translation>
    </message>
    <message>
        <source>Could not save the notifications setting — {error}</source>
        <translation>无法保存通知设置：{error}</translation>
    </message>
    <message>
        <source>Mute notifications</source>
        <translation>静音通知</translation>
    </message>
    <message>
        <source>No desktop notifications from this line; its badge still shows in the list</source>
        <translation>不再为这条任务线发出桌面通知；列表中仍会显示它的标记</translation>
    </message>
    <message>
        <source>Could not change the line's notifications — {error}</source>
        <translation>无法更改这条任务线的通知：{error}</translation>
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
        <source>Open the line</source>
        <translation>打开任务线</translation>
    </message>
    <message>
        <source>{app}: {title}</source>
        <translation>{app}：{title}</translation>
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
    <name>RestoreDialog</name>
    <message>
        <source>Restore files to before turn {turn}</source>
        <translation>把文件恢复到第 {turn} 轮次之前</translation>
    </message>
    <message>
        <source>The line's folder goes back to how it was before turn {turn}: every file that turn and later turns changed. Nothing in the conversation is deleted, and “Undo restore” brings the files back.</source>
        <translation>任务线的工作目录会回到第 {turn} 轮次之前的样子：该轮次及之后各轮次改动过的每个文件都会恢复。对话中的内容不会被删除，「撤回恢复」可以把文件找回来。</translation>
    </message>
    <message>
        <source>Also fork the line at this turn (the fork's model does not see later messages)</source>
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
    <name>SearchPalette</name>
    <message>
        <source>Search every line's messages, tool output, titles (conf* for prefixes)</source>
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
        <translation><numerusform>%n 条消息</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>%n line(s)</source>
        <translation><numerusform>%n 条任务线</numerusform></translation>
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
    <name>SignInCard</name>
    <message>
        <source>{agent} needs you to sign in before it can work on this line. Choose how:</source>
        <translation>{agent} 需要你先登录，才能处理这条任务线。请选择登录方式：</translation>
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
        <source>This line's folder is missing:
{path}

Choose another with “Change folder…”, or “Recreate folder” to make the line's own folder again.</source>
        <translation>这条任务线的工作目录不见了：
{path}

请用「更改工作目录…」另选一个，或用「重建工作目录」重新建立这条任务线自己的工作目录。</translation>
    </message>
    <message>
        <source>This is a normal task dispatched from a “{category}” line. It cannot read that line's messages, so the words it was dispatched on are not shown here or to it: this is on purpose, not a missing record.</source>
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
        <source>Make this line's folder again, at the path it is bound to; to use another folder, Change folder…</source>
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
        <source>default: xworkmate/&lt;the line's folder name&gt;</source>
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
