<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>CoreText</name>
        <message>
            <source>the line's folder {path} was replaced by a symbolic link to {target} since it was bound; pick its folder again (Change folder…)</source>
            <translation>这条任务线的工作目录 {path} 在绑定之后被换成了指向 {target} 的符号链接；请重新选择它的工作目录（“更换文件夹…”）</translation>
        </message>
        <message>
            <source>the line's folder {path} was replaced by another folder since it was bound; pick its folder again (Change folder…)</source>
            <translation>这条任务线的工作目录 {path} 在绑定之后被换成了另一个文件夹；请重新选择它的工作目录（“更换文件夹…”）</translation>
        </message>
        <message>
            <source>the line's folder {path} now leads to {target}, not to the folder it was bound to; pick its folder again (Change folder…)</source>
            <translation>这条任务线的工作目录 {path} 现在指向 {target}，不再是绑定时的那个文件夹；请重新选择它的工作目录（“更换文件夹…”）</translation>
        </message>
    </context>
</TS>
