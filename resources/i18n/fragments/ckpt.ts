<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>ChangesView</name>
        <message>
            <source>Files changed after that turn began, while the folder's first checkpoint was being taken: some of the turn's own first changes may still be there.</source>
            <translation>该轮开始后、文件夹的首个检查点仍在生成时，有文件发生了变化：该轮自己最早的一些改动可能仍然保留。</translation>
        </message>
    </context>
</TS>
