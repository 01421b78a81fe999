<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
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
</TS>
