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
    <name>AgentSessionBar</name>
    <message>
        <source>Agent mode</source>
        <translation>智能体模式</translation>
    </message>
    <message>
        <source>The agent&apos;s mode (session/set_mode)</source>
        <translation>智能体的模式（session/set_mode）</translation>
    </message>
    <message>
        <source>Agent model</source>
        <translation>智能体模型</translation>
    </message>
    <message>
        <source>The agent&apos;s model (session/set_model)</source>
        <translation>智能体使用的模型（session/set_model）</translation>
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
        <source>New session</source>
        <translation>新会话</translation>
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
        <source>TOKEN=env:MY_TOKEN (references, read when the agent starts)</source>
        <translation>TOKEN=env:MY_TOKEN（引用，在智能体启动时读取）</translation>
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
        <source>Environment</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>give a command (stdio) or a URL (http), one of them</source>
        <translation>请填写命令（stdio）或 URL（http），二者选一</translation>
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
        <source>Type a request for this task line… (Enter sends, Shift+Enter adds a line)</source>
        <translation>为这条任务线输入请求…（Enter 发送，Shift+Enter 换行）</translation>
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
        <source>Waiting for you — {explanation}.</source>
        <translation>等待你处理——{explanation}。</translation>
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
        <source>This line&apos;s session key</source>
        <translation>这条任务线的会话键</translation>
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
        <source>Commands on this line can reach the network (click to turn it off)</source>
        <translation>这条任务线上的命令可以访问网络（点击关闭）</translation>
    </message>
    <message>
        <source>Commands on this line run without network, in their sandbox (click to allow it)</source>
        <translation>这条任务线上的命令在沙箱中运行，不能访问网络（点击允许）</translation>
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
        <source>The server answered but offers no models.</source>
        <translation>服务器有响应，但没有提供模型。</translation>
    </message>
    <message>
        <source>Looking for local servers…</source>
        <translation>正在查找本机服务器…</translation>
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
        <source>Write refused</source>
        <translation>写入被拒绝</translation>
    </message>
    <message>
        <source>Not approved</source>
        <translation>未获批准</translation>
    </message>
    <message>
        <source>Refused: outside the folder</source>
        <translation>已拒绝：在工作目录之外</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Timed out</source>
        <translation>已超时</translation>
    </message>
    <message>
        <source>Invalid arguments</source>
        <translation>参数无效</translation>
    </message>
    <message>
        <source>Unknown tool</source>
        <translation>未知工具</translation>
    </message>
    <message>
        <source>The agent stopped</source>
        <translation>智能体已停止</translation>
    </message>
    <message>
        <source>Unfinished</source>
        <translation>未完成</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>diff +{added} −{removed} — click to show</source>
        <translation>diff +{added} −{removed}——点击显示</translation>
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
    <message numerus="yes">
        <source>%n line(s)</source>
        <translation>
            <numerusform>%n 行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Thinking… (%n word(s) — click to show)</source>
        <translation>
            <numerusform>思考中…（%n 个词——点击显示）</numerusform>
        </translation>
    </message>
    <message>
        <source>{label}: {subject}</source>
        <translation>{label}：{subject}</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
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
    <message>
        <source>failed</source>
        <translation>失败</translation>
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
</TS>
