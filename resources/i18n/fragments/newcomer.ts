<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>RenderingText</name>
        <message>
            <source>diff +{added} −{removed} — click to show</source>
            <translation>差异 +{added} −{removed}——点击显示</translation>
        </message>
    </context>
</TS>
