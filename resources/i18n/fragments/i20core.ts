<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>CoreText</name>
        <message>
            <source>invalid content category {value!r}: use 1-64 characters from a-z, 0-9, '_' and '-', starting with a letter or digit</source>
            <translation>无效的内容类别 {value!r}：请用 1-64 个字符（a-z、0-9、'_' 和 '-'），以字母或数字开头</translation>
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
            <source>category {declared!r} is not this thread's category ({owner!r}): a task may declare only its dispatcher's own category; pass {owner!r} for work on this category's content, or omit `category` to dispatch a normal task</source>
            <translation>类别 {declared!r} 不是本线程的类别（{owner!r}）：任务只能声明派发者自己的类别；处理本类别的内容请传 {owner!r}，否则省略 `category` 即派普通任务</translation>
        </message>
        <message>
            <source>Reminder: this is a normal task. Keep this conversation's {category!r} content out of its goal and context; to dispatch work related to {category!r}, pass "category": "{category}".</source>
            <translation>这是普通任务：goal / context 里不要带本类别（{category!r}）的内容；要派与本类别相关的活，传 category（"category": "{category}"）。</translation>
        </message>
        <message>
            <source>a task of category {category!r} cannot run in ACP mode: external agent CLIs do not go through the category router (CAT-3); use native mode with a model tagged {category!r}</source>
            <translation>类别为 {category!r} 的任务不能在 ACP 模式下运行：外部 agent CLI 不经过类别路由，类别内容不能交给 CLI；请用原生模式和带 {category!r} 标签的模型</translation>
        </message>
        <message>
            <source>model {provider!r} is not tagged {category!r}, so it may not see this task's content; choose a model tagged {category!r} or leave the model unset to use the first one of the group</source>
            <translation>模型 {provider!r} 没有 {category!r} 标签，不能看到这个任务的内容；请选一个带 {category!r} 标签的模型，或者不指定模型，用组里第一个带标签的模型</translation>
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
            <source>this line's folder is missing; choose one with “Change folder…”</source>
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
</TS>
