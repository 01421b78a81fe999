<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
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
        <name>MessageListModel</name>
        <message>
            <source>image</source>
            <translation>图片</translation>
        </message>
        <message>
            <source>text file</source>
            <translation>文本文件</translation>
        </message>
    </context>
    <context>
        <name>ProviderSettingsDialog</name>
        <message>
            <source>The model takes images (vision)</source>
            <translation>模型可接收图片（视觉）</translation>
        </message>
    </context>
</TS>
