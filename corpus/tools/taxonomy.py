"""The corpus taxonomy (corpus/SPEC.md): attack families, benign kinds and carriers.

One definition, shared by generate.py and build.py.
"""

FAMILIES = (
    "override", "addressed_to_ai", "authority", "template_spoof", "tool_coercion", "exfiltration",
    "secrecy", "prompt_extraction", "jailbreak_persona", "conditional_trigger", "hidden_carrier",
    "task_hijack",
)
BENIGN_KINDS = (
    "human_imperative", "security_discussion", "chat_log", "code", "encoded", "markdown_media",
    "assistant_spec", "admin_notice", "plain",
)
CARRIERS = (
    "email", "ticket", "web_html", "search_json", "code_file", "readme", "log", "calendar",
    "chat_message", "pdf_text", "review", "api_json", "csv", "note", "issue_comment", "transcript",
)
