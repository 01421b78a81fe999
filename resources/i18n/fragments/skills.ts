<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
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
            <source>Choose the skills this line's agent may use</source>
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
        <name>CoreText</name>
        <message>
            <source>read skill {name}</source>
            <translation>读取技能 {name}</translation>
        </message>
    </context>
    <context>
        <name>RenderingText</name>
        <message>
            <source>Read skill {where}</source>
            <translation>已读取技能 {where}</translation>
        </message>
        <message>
            <source>refused: not a file of the skill</source>
            <translation>已拒绝：不是该技能的文件</translation>
        </message>
    </context>
</TS>
