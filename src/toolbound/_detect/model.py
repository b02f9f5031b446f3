"""The passage model: a small logistic regression over hashed n-grams and cue features.

An injection in a tool output is usually one passage inside ordinary content, so the model scores
*passages* (a sentence, a line, a JSON field around a cue) and then combines the best passage
scores with the document's rule evidence into one document score.

Pipeline for one text (:meth:`Model.score`):

1. **Candidates.** One pass of a compiled cue-word regex (AI-addressing words, second-person
   pronouns, override/priority markers, secrecy, conditionals, action verbs, conversation-structure
   tokens, in the 11 corpus languages; a separate one for CJK) over the lower-cased text, and one of
   the multi-word cues ("if you are", "do not tell", "from now on", "без ограничений"). A strong
   cue, an imperative action verb, two weaker cues of different kinds close together, or a rule
   finding of the engine (which already undid evasions) opens a passage: up to the nearest
   line/sentence/field boundary, at most :data:`MAX_SIDE` characters either side. Text with no cue
   and no finding costs that one pass and nothing else.
2. **Passage features.** The passage is folded like the engine folds text (lookalikes, invisible
   characters, NFKC) and lower-cased, then tokenised: words, single CJK characters, punctuation
   runs. Hashed features (:data:`HASH_BITS` bits): word unigrams, character 3-5-grams inside each
   word, token bigrams (and a passage-start bigram, which captures imperatives), token trigrams of
   CJK characters, and the document's context words (discussion / test-spec vocabulary, coarse
   document kind) shared by all its passages. Dense features: cue classes, their conjunctions (AI +
   action, action + target, override + action, ...), targets (URL, e-mail address, path, tool
   name, account), register shift (the passage says "you" and the rest of the document does not),
   quoting, discussion words nearby, and the engine's rule hits by family inside the passage.
3. **Document score.** A small logistic regression over the best two passage logits, the number
   of positive passages, the document's discussion / test-spec word counts and a bag-of-words
   logit of the whole document (its distinct tokens, the first 4,000, hashed into a second weight
   block; :meth:`Model.bow_logit`), which sees what no single passage shows: the register of the
   whole carrier. Its bias is shifted
   so that the threshold chosen on the dev split maps to 0.5; a rule score at or above the dev-chosen
   *rule floor* flags the text on its own (``model.json``: ``doc.rule_floor``).

Inference is pure Python and needs only the standard library: the hashed weights are float32 in
``model.bin`` (read with :mod:`array`), everything else is in ``model.json``. Features of a token
depend on the token alone, so each token's weight sum is computed once per process and cached.

Training (``python -m toolbound._detect.train``) uses the very same extraction functions
(:func:`passage_tokens`, :func:`token_ids`, :func:`ngram_ids`, :func:`dense_features`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
import threading
import zlib
from bisect import bisect_left, bisect_right
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from toolbound._types import Finding
from toolbound._detect.engine import _trie_regex as _trie  # one trie builder for literals
from toolbound._detect.langid import added_language
from toolbound._detect.spanindex import SpanIndex

__all__ = [
    "DENSE_NAMES", "DOC_NAMES", "FEATURE_VERSION", "HASH_BITS", "Model", "ModelError", "candidate_passages",
    "bow_text", "bow_token_ids", "compile_opener", "doc_bow_ids", "doc_bow_tokens", "extract",
    "dense_features", "doc_features", "get_model", "model_scorer", "ngram_ids", "passage_tokens", "token_ids",
    "weights_present",
]

FEATURE_VERSION = 3
HASH_BITS = 18
HASH_SIZE = 1 << HASH_BITS
MASK32 = 0xFFFFFFFF
MAX_SIDE = 240        # characters kept either side of a cue when a passage has no nearer boundary
MAX_TOKENS = 96       # tokens per passage (the rest is ignored)
MAX_TOKEN_LEN = 40    # longer tokens (base64 blobs, hashes) become one "long token" feature
CHAR_NGRAMS = (3, 4, 5)
TOKEN_CACHE_LIMIT = 200_000
SHORT_TEXT = 64           # texts up to this length (without rule findings: labels, names, statuses) have their score cached
SHORT_CACHE_LIMIT = 8192
WINDOW_PAD = 200  # round 159 (W159): characters kept on each side of the best passage in its window
# How many test-spec (``meta``) words in a document switch the window floor off; None: they never do
# (round 199, Q199; round 159 switched it off at one). Discussion words always do. READMEs say "run
# `make lint test`" and "expected": a window keeps whatever test-spec words fall inside it.
WINDOW_META_OFF: int | None = None
NO_PASSAGE_LOGIT = -8.0

MODEL_DIR = Path(__file__).resolve().parent
WEIGHTS_FILE = "model.bin"
META_FILE = "model.json"
EXPERT_DIR = "expert"  # the expert model's directory, beside the shipped model's files (round 42)

# -------------------------------------------------------------------------------------------------
# Cue lexicon. Lower-case. A literal ending in "*" is a stem (word start anchored only); other
# Latin/Cyrillic literals are whole words; literals in scripts written without spaces between words
# (CJK, kana) or with attached particles (Hangul, Arabic) match anywhere.
# -------------------------------------------------------------------------------------------------

CUES: dict[str, tuple[str, ...]] = {
    "ai": (
        "ai", "a.i.", "assistant*", "agent*", "model", "models", "llm*", "chatbot*", "bot", "bots", "gpt*",
        "chatgpt", "claude", "gemini", "copilot", "language model*", "system prompt*", "prompt", "prompts",
        "automated", "summarizer", "summariser", "crawler*", "scraper*", "tool", "tools", "reviewer*",
        "copilot*", "chatbots",
        "user", "user's", "users", "程序", "工具", "助理", "智能", "系统", "ツール", "プログラム", "도구", "프로그램",
        "ferramenta*", "herramienta*", "outil*", "werkzeug*", "strumento", "инструмент*", "الذكاء", "ذكاء",
        "الاصطناعي", "للذكاء", "بالذكاء", "пользовател*", "utilisateur*", "usuario*", "usuário*", "utente",
        "benutzer*", "nutzer*", "用户", "ユーザー", "사용자",
        "助手", "人工智能", "模型", "智能体", "机器人", "大模型", "代理", "ai助手",
        "アシスタント", "エージェント", "モデル", "人工知能", "ボット", "言語モデル",
        "어시스턴트", "에이전트", "모델", "인공지능", "챗봇", "비서",
        "asistente*", "agente*", "modelo*", "ia", "inteligencia artificial",
        "modèle*", "intelligence artificielle", "assistent*", "modell*", "ki", "sprachmodell*",
        "ассистент*", "агент*", "модель*", "ии", "нейросет*", "бот", "помощник*",
        "assistente*", "modello*", "intelligenza artificiale",
        "المساعد", "مساعد", "الذكاء الاصطناعي", "النموذج", "الوكيل", "روبوت",
    ),
    "you": (
        "you", "your", "yours", "yourself", "you're", "you'll", "you've",
        "你", "您", "あなた", "君", "당신", "너는", "네가", "너의",
        "tú", "tu", "tus", "usted", "ustedes", "te", "vosotros",
        "vous", "ton", "ta", "tes", "votre", "vos", "toi",
        "dein*", "dich", "dir", "euch",
        "ты", "вы", "тебя", "вас", "твой", "твоя", "твои", "ваш", "ваша", "ваши", "тебе", "вам",
        "você", "vocês", "teu", "tua", "tuo", "tuoi", "voi", "ti",
        "أنت", "أنتم", "عليك", "إليك",
    ),
    "override": (
        "ignor*", "disregard*", "forget*", "override*", "overrid*", "instead", "supersed*", "previous", "prior",
        "above", "from now on", "new instruction*", "instruction*", "important", "urgent*", "priority",
        "real task", "actual task", "true task", "before you", "before answering", "before responding",
        "do not", "don't", "immediately", "mandatory", "attention",
        "忽略", "无视", "忘记", "忘掉", "重要", "指令", "指示", "任务", "务必", "必须",
        "立即", "无视", "不要理会",
        "無視", "忘れ", "重要", "代わりに", "必ず", "直ちに", "今から",
        "무시", "잊어", "이전", "지시", "중요", "대신", "반드시", "즉시", "지금부터",
        "ignora*", "olvid*", "instruccion*", "anterior*", "importante", "en lugar", "en vez",
        "ignorez", "oubli*", "précédent*", "au lieu", "désormais", "immédiatement",
        "ignorier*", "vergiss", "vergessen", "anweisung*", "vorherig*", "wichtig", "stattdessen", "sofort",
        "игнорир*", "забудь*", "инструкци*", "предыдущ*", "важно", "вместо", "немедленно", "срочно",
        "esqueça", "esqueca", "instruç*", "instruc*", "em vez", "imediatamente",
        "dimentica*", "istruzion*", "precedent*", "invece", "subito",
        "تجاهل", "انس", "التعليمات", "تعليمات", "السابقة", "مهم", "بدلا", "فورا", "عاجل",
        "作废", "无效", "为准", "规则", "设定", "真正", "新规则", "ルール", "設定", "無効", "守らなくて", "규칙", "설정",
        "무효", "최우선", "compito", "indicazioni", "lascia", "tarea", "tâche", "aufgabe", "задача", "tarefa",
        "обязательно", "reglas", "règles", "regeln", "правила", "regras", "regole", "القواعد",
        "persona", "unrestricted", "unfiltered", "uncensored", "jailbroken", "restrictions", "limitations",
        "guidelines", "policies", "filters", "safeguards", "dan", "developer", "sin restricciones",
        "sans restriction*", "uneingeschränkt*", "без ограничений", "sem restrições", "senza restrizioni",
        "无限制", "不受限制", "制限なし", "제한 없는",
    ),
    "action": (
        "send", "forward", "transfer", "wire", "delete", "remove", "visit", "click", "execute", "run", "print",
        "reveal", "output", "repeat", "respond", "reply", "answer", "write", "translate", "tell", "say", "include",
        "recommend", "append", "upload", "share", "navigate", "open", "download", "grant", "change", "update",
        "create", "summarize", "summarise", "display", "show", "insert", "copy", "leak", "exfiltrate", "fetch",
        "browse", "disclose", "export", "invoke", "approve", "add", "email", "mail", "post", "call", "pay", "book",
        "sends", "forwarding", "exfiltrating", "transferring", "deleting", "leaking",
        "rate", "quote", "cite", "praise", "promote", "explain", "describe", "state", "claim", "pretend", "act",
        "roleplay", "switch", "become", "behave", "speak", "prepend", "format", "rewrite", "rank", "label", "flag",
        "assign", "close", "merge", "push", "install", "buy", "purchase", "order", "subscribe", "sign", "end",
        "start", "begin", "respond", "refuse", "comply", "obey", "follow", "advise", "urge", "warn", "notify",
        "conclude", "compare", "evaluate", "omit", "skip", "ignore", "stop", "keep", "make", "give", "ask", "asks",
        "asked", "mention", "tell", "describe", "digli", "dille", "dis", "dites", "dile", "diga", "sagen",
        "推荐一下", "顺便", "添えて", "貼って", "伝えて", "翻訳して", "붙여", "바꿔서", "답해",
        "发送", "转发", "发给", "发到", "删除", "转账", "打开", "访问", "执行", "运行", "回复", "告诉", "输出", "打印",
        "透露", "泄露", "翻译", "推荐", "调用", "点击", "提供", "写", "上传", "汇款", "授权",
        "送信", "転送", "送って", "削除", "振込", "振り込", "実行", "出力", "教えて", "返信", "翻訳", "表示", "開いて",
        "アクセス", "共有", "書いて", "呼び出",
        "보내", "전송", "전달", "삭제", "이체", "실행", "출력", "알려", "답변", "번역", "추천", "방문", "호출", "공유",
        "envía", "envia*", "reenví*", "reenvia*", "transfiere", "elimina*", "borra*", "ejecuta*", "responde*",
        "escribe", "traduce", "revela*", "visita*", "muestra", "incluye",
        "envoie*", "envoyez", "transfère*", "transférez", "supprime*", "exécute*", "réponds", "répondez",
        "écris", "écrivez", "traduis", "traduisez", "révèle*", "affiche*", "inclu*",
        "sende*", "schick*", "leite*", "weiterleit*", "überweis*", "lösch*", "führe", "ausführ*", "antworte*",
        "schreib*", "übersetz*", "verrate*", "besuche*", "zeige*", "gib", "übertrag*", "übermittl*", "lade",
        "rufe", "öffne", "kopiere", "hänge", "füge",
        "отправ*", "перешли*", "пересл*", "переведи*", "удали*", "выполни*", "ответь*", "напиши*", "покажи*",
        "раскрой*", "сообщи*", "посети*", "перечисли*",
        "envie*", "encaminh*", "transfira", "exclua", "apague", "execute", "responda", "escreva", "traduza",
        "revele", "visite", "mostre",
        "invia*", "inoltra*", "trasferisci", "cancella*", "esegui*", "rispondi", "scrivi", "traduci", "rivela*",
        "mostra*",
        "أرسل", "ارسل", "حول", "احذف", "نفذ", "اكتب", "ترجم", "اكشف", "أخبر", "اخبر", "قم ب",
        "标记", "提交", "转给", "使用", "支付", "告知", "通知", "回答", "言って", "答え", "伝えて", "送金", "出力して",
        "출력", "언급", "menciona", "añade", "agrega", "indica", "usa", "utiliza", "llama", "abre", "copia", "marca",
        "confirma", "recopie", "copie", "indique", "ajoute", "utilise", "appelle", "ouvre", "confirme", "marque",
        "rispondere", "usa", "marque", "faça", "utilize", "use", "attach", "mark", "confirm", "set", "use", "put",
        "sag", "nutze", "verwende", "markiere", "bestätige", "используй", "отметь", "подтверди", "позвони*",
        "استخدم", "أكد", "اذكر",
        # operating the reader's accounts and devices (requests slipped into app data)
        "disable", "enable", "deactivate", "activate", "unlock", "cancel", "refund", "reserve", "register",
        "rsvp", "enroll", "enrol", "leave", "move", "withdraw", "invite", "authorize", "authorise", "reset",
        "unsubscribe", "schedule", "reschedule", "accept", "turn", "allow", "revoke", "renew", "redeem",
        "desactiva", "activa", "cancela", "reembolsa", "reserva", "inscribe", "paga", "comparte", "instala",
        "concede", "otorga", "publica", "autoriza",
        "désactive*", "désactivez", "activez", "annule*", "rembourse*", "réserve*", "inscri*",
        "paie", "payez", "partage*", "installe*", "accorde*", "publie*", "vire", "virez", "autorise*",
        "deaktivier*", "aktivier*", "storniere", "erstatte", "buche", "reserviere", "bezahle", "zahle",
        "teile", "installiere", "gewähre", "poste", "veröffentliche", "autorisiere",
        "отключи*", "включи*", "отмени*", "верни*", "оплати*", "установи*", "предоставь*", "опубликуй*",
        "забронируй*", "поделись",
        "desative", "ative", "cancele", "reembolse", "reserve", "inscreva", "pague", "compartilhe", "instale",
        "conceda", "publique", "autorize",
        "disattiva", "attiva", "annulla", "rimborsa", "prenota", "iscrivi", "condividi", "installa",
        "concedi", "pubblica", "autorizza",
        "عطّل", "عطل", "فعّل", "ألغ", "الغ", "ادفع", "شارك", "ثبّت", "ثبت", "امنح", "انشر", "احجز",
        "关闭", "取消", "退款", "预订", "付款", "安装", "分享", "发布", "开通", "解绑", "授予", "转入", "转出",
        "無効に", "解除", "キャンセル", "返金", "予約", "支払", "インストール", "投稿", "付与",
        "비활성화", "해제", "취소", "환불", "예약", "결제", "설치", "게시", "부여",
    ),
    "secrecy": (
        "secret*", "confidential*", "between us", "without telling", "silently", "quietly", "do not mention",
        "don't mention", "do not tell", "don't tell", "never mention", "never tell", "hidden", "hide",
        "not visible", "do not reveal", "without mentioning",
        "不要告诉", "不要提及", "保密", "秘密", "悄悄", "不要让用户", "別告诉", "不要透露",
        "伝えないで", "言わないで", "秘密", "内緒", "こっそり", "말하지 마", "알리지 마", "비밀", "몰래",
        "secreto*", "no menciones", "no le digas", "sin decir", "ne mentionne*", "ne dis pas", "sans le dire",
        "geheim*", "nicht erwähnen", "erwähne nicht", "sag nicht", "не говори", "не упоминай", "секрет*",
        "тайн*", "não mencione", "não diga", "segredo", "non menzionare", "non dire", "segreto",
        "لا تخبر", "لا تذكر", "سرا", "سري",
    ),
    "cond": (
        "if you are", "if you're", "when you", "whenever", "if the user", "when the user", "if asked",
        "when summarizing", "when summarising", "if you read", "anyone reading", "whoever reads",
        "如果你", "如果您", "当你", "当用户", "もしあなた", "만약", "si eres", "si usted", "si vous", "si tu es",
        "wenn du", "falls du", "если ты", "если вы", "se você", "se sei", "إذا كنت",
        "whoever", "whoever's", "reading", "summarizing", "summarising", "processing", "parsing", "crawling",
        "indexing", "lesende*", "liest", "lisant", "lit", "leyendo", "lendo", "leggendo", "читающ*",
        "summary", "summaries", "résumé", "resumen", "resumo", "riassunto", "zusammenfassung", "пересказ*",
        "резюме", "synthétiser", "synthèse", "resumir", "riassumere", "zusammenfassen", "يلخص", "يلخّص", "ملخص",
        "总结", "摘要", "概括", "处理此", "要約", "요약", "처리하는",
    ),
    "discuss": (
        "prompt injection*", "injection*", "jailbreak*", "attack*", "attacker*", "payload*", "red team*",
        "red-team*", "vulnerab*", "researcher*", "paper", "e.g.", "exploit*", "malicious",
        "adversar*", "cve", "security", "phishing", "quoted", "detector*", "classifier*",
        "注入", "攻击", "漏洞", "越狱", "研究", "例如", "示例", "安全", "インジェクション", "攻撃", "脆弱性",
        "例えば", "セキュリティ", "인젝션", "공격", "취약점", "예시", "보안", "inyección", "ataque*", "ejemplo*",
        "seguridad", "attaque*", "vulnérab*", "exemple*", "sécurité", "injektion*", "angriff*",
        "schwachstelle*", "beispiel*", "sicherheit*", "инъекц*", "атак*", "уязвим*", "пример*",
        "безопасност*", "injeção", "exemplo*", "segurança", "iniezion*", "attacc*", "esempio*", "sicurezza",
        "حقن", "هجوم", "ثغرة", "مثال", "الأمن",
    ),
}
ADDRESS_FAMILIES = frozenset({"addressed_to_ai", "override", "authority", "template_spoof",
                              "conditional_trigger", "jailbreak_persona", "hidden_carrier"})
ACTION_FAMILIES = frozenset({"exfiltration", "tool_coercion", "secrecy", "prompt_extraction", "task_hijack"})
RULE_FAMILIES: tuple[str, ...] = (
    "override", "addressed_to_ai", "authority", "template_spoof", "tool_coercion", "exfiltration",
    "secrecy", "prompt_extraction", "jailbreak_persona", "conditional_trigger", "hidden_carrier",
    "task_hijack",
)
_NOSPACE_RE = re.compile("[\u0600-\u06ff\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
                         "\uac00-\ud7af\uf900-\ufaff]")

AUX_CUES: dict[str, tuple[str, ...]] = {
    "neg": (
        "not", "don't", "dont", "never", "no", "without", "nothing", "nicht", "kein*", "nie", "niemals", "ohne",
        "pas", "jamais", "sans", "nunca", "sin", "não", "nao", "sem", "non", "mai", "senza", "не", "никогда",
        "без", "لا", "دون", "절대", "않", "말고", "不要", "别", "勿", "不得", "禁止", "ないで", "しないで", "決して",
    ),
    "ifw": (
        "if", "when", "whenever", "unless", "once", "si", "cuando", "lorsque", "quand", "wenn", "falls", "sobald",
        "если", "когда", "se", "quando", "caso", "إذا", "عندما", "만약", "경우", "如果", "若", "もし", "場合",
    ),
    "tell": (
        "tell*", "mention*", "inform*", "notify*", "disclos*", "say", "let", "alert*", "warn*", "erwähn*",
        "sag", "sagen", "dis", "dites", "mentionne*", "digas", "menciones", "diga", "mencione", "dire",
        "menzionare", "говори*", "сообщай*", "упоминай*", "تخبر", "تذكر", "말하지", "알리지", "告诉", "提及", "提到",
        "言わ", "伝え",
    ),
    "meta": (
        "test", "tests", "testcase*", "expected", "expect", "scenario*", "should", "spec", "specification*",
        "requirement*", "behavior*", "behaviour*", "guardrail*", "refuse*", "decline*", "rejects", "reject",
        "politely", "fixture*", "assert*", "eval*", "benchmark*", "测试", "用例", "预期", "拒绝", "规范", "テスト", "期待",
        "拒否", "仕様", "테스트", "예상", "거절", "거부", "prueba*", "esperado*", "rechaza*", "attendu*", "refuse",
        "erwartet*", "lehnt", "ablehn*", "тест*", "ожида*", "отказ*", "teste*", "recusa*", "atteso", "rifiuta*",
        "اختبار", "متوقع", "يرفض",
    ),
    "req": (
        "please", "pls", "plz", "kindly", "bitte", "svp", "merci", "porfa", "favor", "favore", "cortesemente",
        "пожалуйста", "请", "麻烦", "帮忙", "帮我", "ください", "お願い", "주세요", "부탁", "يرجى", "الرجاء", "رجاء", "فضلك",
    ),
    "cap": (
        "account*", "card", "cards", "wallet*", "device*", "logged", "login", "stored", "saved", "linked",
        "connected", "holder", "settings", "paypal", "2fa", "mfa", "permission*",
        "tarjeta*", "cuenta*", "dispositivo*", "guardada", "vinculad*", "titular", "ajustes", "configuración",
        "carte", "compte*", "appareil*", "enregistrée", "lié", "liée", "titulaire", "paramètres",
        "karte", "konto*", "gerät*", "gespeichert*", "verknüpft*", "inhaber*", "einstellung*",
        "карт*", "счет*", "счёт*", "устройств*", "сохранен*", "привязан*", "владел*", "настройк*",
        "cartão", "conta", "salvo", "salva", "configurações", "carta", "conto", "salvata", "collegat*",
        "titolare", "impostazioni",
        "银行卡", "信用卡", "账户", "账号", "设备", "绑定", "名下", "カード", "口座", "アカウント", "端末", "連携",
        "카드", "계좌", "계정", "기기", "저장된", "연결된",
        "بطاقة", "البطاقة", "حساب", "الحساب", "جهاز", "الجهاز", "المحفوظة", "المرتبط",
    ),
    "acct": (
        "account*", "iban", "wallet*", "routing", "swift", "bic", "password*", "passwd", "credential*", "token*",
        "api_key", "apikey", "secret_key", "ssn", "cvv", "pin", "seed", "mnemonic", "private", "cookie*",
        "账户", "账号", "密码", "口座", "パスワード", "계좌", "비밀번호", "cuenta*", "contraseña*", "compte*",
        "konto*", "passwort*", "счет*", "счёт*", "пароль*", "conta", "senha*", "conto", "حساب", "كلمة",
    ),
}
CATEGORIES: tuple[str, ...] = ("ai", "you", "override", "action", "secrecy", "cond", "struct", "discuss",
                               "neg", "ifw", "tell", "acct", "trigger", "noun", "meta", "req", "cap")
BIT = {c: 1 << i for i, c in enumerate(CATEGORIES)}
AI, YOU, OVR, ACT, SEC, COND, STRUCT, DISC, NEG, IFW, TELL, ACCT, TRIG, NOUN, META, REQ, CAP = (
    BIT[c] for c in CATEGORIES)
STRONG = AI | OVR | SEC | COND | STRUCT
# Cue words that are too common in ordinary documents to open a passage on their own (they still
# count as features inside a passage opened by something else).
NOT_TRIGGER = frozenset({
    "model", "models", "prompt", "prompts", "bot", "bots", "agency", "agenda", "tool", "tools",
    "important", "priority", "urgent", "urgently", "attention", "mandatory", "confidential", "confidentiality",
    "hidden", "hide", "secret", "secrets", "secretary", "secretariat", "above", "prior", "previous", "previously",
    "immediately", "instead", "whenever", "modelo", "modelos", "modèle",
    "modèles", "modell", "modelle", "modello", "modelli", "модель", "модели", "agente", "agentes", "agenti",
    "агент", "importante", "wichtig", "важно", "mandatorio", "segreto", "secreto", "geheim", "instruction",
    "instructions", "override", "overrides", "overridden", "ignored", "forgotten", "forgot", "anterior",
    "anteriores", "precedente", "precedenti", "précédent", "précédente", "vorherige", "предыдущий",
    "automatisch", "automatic", "restrictions", "limitations", "guidelines", "policies", "filters", "safeguards",
    "developer", "user", "user's", "users", "utilisateur", "utilisateurs", "usuario", "usuarios", "usuário",
    "utente", "benutzer", "nutzer",
})
# Words of the "action" list that are mostly nouns in data (e-mail headers, JSON keys): they open a
# passage only as an imperative at its start.
ACTION_NOUNS = frozenset({"email", "mail", "post", "book", "pay", "order", "label", "flag", "state", "format",
                          "rank", "close", "end", "act", "start", "sign", "switch", "push", "merge", "rate",
                          "leave", "move", "register", "schedule", "reserve", "turn", "reset", "cancel", "refund",
                          "reserva", "paga", "poste"})
# Tokens of conversation structure (punctuation runs and words seen in chat templates).
STRUCT_TOKENS = frozenset({"<|", "|>", "<<", ">>", "[/", "</", "###", "inst", "im_start", "im_end", "endoftext",
                           "sys", "<|>", "|><|", "[[", "]]", "-->", "<!--", "|>\\", "\\n<|"})
# Literals checked in the whole document (C-speed ``in``) to open a passage on conversation structure.
STRUCT_LITERALS: tuple[str, ...] = ("<|", "|>", "[inst]", "[/inst]", "<<sys>>", "\nsystem:", "\nassistant:",
                                    "\nuser:", "\nhuman:", "### system", "### instruction", "<system",
                                    "</system", "</tool", "\"role\": \"system\"", "'role': 'system'",
                                    "end of document", "end of context", "[system")

_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RE = re.compile(f"[{_CJK_CHARS}]")
_TOKEN_RE = re.compile(f"[{_CJK_CHARS}]|[^\\W_{_CJK_CHARS}]+|[^\\w\\s]+")
_ASCII_TOKEN_RE = re.compile(r"[a-z0-9]+|[^\w\s]+")  # the same tokens on lower-cased ASCII text
_DIGITS = str.maketrans("123456789", "000000000")
_STRIP = "'\"«»“”„‘’¿¡()[]{}<>.,;:!?、，。！？：；…—–-*·/\\|"

_EMAIL_RE = re.compile(r"[\w.+-]@[\w-]+\.\w")
_PATH_RE = re.compile(r"(?:^|[\s'\"(`])(?:~/|/etc/|/home/|/var/|/tmp/|/root|\.ssh|\.env\b|[a-z]:\\)|\.\./")
_TOOL_RE = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b|\b[a-z_][a-z0-9_]*\(")
_CAPS_RE = re.compile(r"[A-Z]{4}")
# Passage boundaries: line breaks (also escaped ones inside JSON strings), sentence ends, JSON/dict
# field separators, HTML comment delimiters, markdown table cells (" | ", so that template tokens
# such as <|im_start|> stay whole). _REV_SEP_RE is the same set, reversed.
_SEP_RE = re.compile(r"\n|\\n|[.!?;]\s|[。！？；]|', '|\", \"|': '|\": \"|<!--|-->| \| ")
_REV_SEP_RE = re.compile(r"\n|n\\|\s[.!?;]|[。！？；]|' ,'|\" ,\"|' :'|\" :\"|--!<|>--| \| ")




def _build_lexicon() -> tuple[dict[str, int], dict[str, int], dict[str, int], re.Pattern[str]]:
    exact: dict[str, int] = {}
    stems: dict[str, int] = {}
    cjk: dict[str, int] = {}
    for table in (CUES, AUX_CUES):
        for cat, lits in table.items():
            bit = BIT[cat]
            for lit in lits:
                if " " in lit:
                    continue  # multi-word cues: _PHRASES
                is_stem = lit.endswith("*")
                lit = lit.rstrip("*")
                if _CJK_RE.search(lit):
                    cjk[lit] = cjk.get(lit, 0) | bit
                elif is_stem or _NOSPACE_RE.search(lit):
                    stems[lit] = stems.get(lit, 0) | bit  # Hangul/Arabic words carry attached particles
                else:
                    exact[lit] = exact.get(lit, 0) | bit
    return exact, stems, cjk, re.compile(_trie(sorted(cjk)))


_EXACT, _STEMS, _CJK_CUES, _CJK_CUE_RE = _build_lexicon()


def _build_phrases() -> tuple[dict[str, int], re.Pattern[str] | None]:
    """Multi-word cues ("if you are", "do not tell", "from now on", "без ограничений"): one
    trie-shaped regex, words separated by any whitespace, at a word start; a trailing "*" is a stem,
    Hangul and Arabic phrases may carry particles, other phrases end at a word end. Returns
    ``(phrase -> categories, regex)``; a match's text, with its whitespace runs read as one space,
    keys the table (stems by their literal part)."""
    table: dict[str, int] = {}
    closed: set[str] = set()
    open_: set[str] = set()
    for tbl in (CUES, AUX_CUES):
        for cat, lits in tbl.items():
            for lit in lits:
                if " " not in lit:
                    continue
                key = " ".join(lit.rstrip("*").split())
                table[key] = table.get(key, 0) | BIT[cat]
                if lit.endswith("*") or _NOSPACE_RE.search(key[-1]) is not None:
                    open_.add(key)
                else:
                    closed.add(key)
    if not table:
        return table, None

    def trie(keys: set[str]) -> str:
        # the trie escapes a space as "\\ "; between words any whitespace run matches
        return _trie(sorted(keys)).replace("\\ ", "\\s+")

    alts = []
    if closed:
        alts.append(f"(?:{trie(closed)})(?!\\w)")
    if open_:
        alts.append(f"(?:{trie(open_)})\\w*")
    # "\\b" rather than "(?<!\\w)" (every phrase starts with a word character, so they agree), behind a
    # lookahead for the phrases' first characters: re tests both far faster than the lookbehind
    firsts = re.escape("".join(sorted({k[0] for k in table})))
    start = "\\b" if all(k[0].isalnum() for k in table) else "(?<!\\w)"
    return table, re.compile(f"(?=[{firsts}]){start}(?:" + "|".join(alts) + ")")


_PHRASES, _PHRASE_RE = _build_phrases()


def _phrase_hits(low: str) -> list[tuple[int, int, str, int]]:
    """``(start, end, phrase, categories)`` of the multi-word cues in lower-cased ``low``."""
    if _PHRASE_RE is None:
        return []
    out = []
    for mt in _PHRASE_RE.finditer(low):
        phrase = " ".join(mt.group().split())
        # the regex matched a key, or a stem key plus the rest of its last word: the longest key
        # that the phrase starts with
        k = len(phrase)
        m = _PHRASES.get(phrase, 0)
        while not m and k > 1:
            k -= 1
            m = _PHRASES.get(phrase[:k], 0)
        if m:
            out.append((mt.start(), mt.end(), phrase, m))
    return out
_STEM_LENS = sorted({len(k) for k in _STEMS}, reverse=True)
_MASKS: dict[str, int] = {}


def token_mask(tok: str) -> int:
    """Cue categories of one lower-cased word token as a bit mask (cached)."""
    m = _MASKS.get(tok)
    if m is not None:
        return m
    m = _EXACT.get(tok, 0)
    for k in _STEM_LENS:
        if k <= len(tok) and tok[:k] in _STEMS:
            m |= _STEMS[tok[:k]]
            break
    if not m and len(tok) > 3 and tok[0] in "وفبل" and "\u0600" <= tok[1] <= "\u06ff":
        m = token_mask(tok[1:])
    if tok in STRUCT_TOKENS:
        m |= STRUCT
    if m & STRONG and tok not in NOT_TRIGGER:
        m |= TRIG
    if m & ACT and tok in ACTION_NOUNS:
        m |= NOUN
    if len(tok) >= 8 and tok.isdigit():
        m |= ACCT  # account, card and phone numbers
    if len(_MASKS) < TOKEN_CACHE_LIMIT:
        _MASKS[tok] = m
    return m


# Cue words of a document: one pass of a trie-shaped alternation of every (non-CJK) cue literal,
# anchored at a word start and extended to the end of its word; the whole word's cue mask is
# looked up (so "ignored" gets the stem "ignor"'s categories and "young" none of "you"'s).
# Latin words glued to CJK text ("AIくん") end where the CJK characters start.
_WORD_CHAR = f"[^\\W_{_CJK_CHARS}]"
_CUE_LITERALS = sorted(set(_EXACT) | set(_STEMS))


def _cue_word_re(ascii_first: bool, word: str = _WORD_CHAR) -> re.Pattern[str]:
    exact = [w for w in _EXACT if w[0].isascii() == ascii_first]
    stems = [w for w in _STEMS if w[0].isascii() == ascii_first]
    return re.compile(f"(?<!{word})(?:{_trie(sorted(exact))}(?!{word})|{_trie(sorted(stems))}{word}*)")


# Two tries: words starting with an ASCII letter (every text), and words starting with another letter
# (only for texts that have such letters; a trie whose first characters span scripts is slower).
_CUE_WORD_RE = _cue_word_re(True)
_CUE_WORD_NA_RE = _cue_word_re(False)
# The same for ASCII text, where _WORD_CHAR is [0-9A-Za-z]: a plain ASCII class is cheaper to test.
_CUE_WORD_ASCII_RE = _cue_word_re(True, "[0-9A-Za-z]")


def _cue_word_b_re() -> re.Pattern[str]:
    """For ASCII text with "_" read as "\\x00": "(?<![0-9A-Za-z])" is then "\\b" (re.ASCII), which re
    tests much faster. Literals are spelt the same way (``api_key`` -> ``api\\x00key``)."""
    exact = [w.replace("_", "\x00") for w in _EXACT if w[0].isascii()]
    stems = [w.replace("_", "\x00") for w in _STEMS if w[0].isascii()]
    return re.compile(f"\\b(?:{_trie(sorted(exact))}(?![0-9A-Za-z])|{_trie(sorted(stems))}[0-9A-Za-z]*)", re.ASCII)


_CUE_WORD_B_RE = _cue_word_b_re()


def _cue_words(low: str) -> list[tuple[int, int, str]]:
    """``(start, end, word)`` of the cue-word matches in ``low`` (the two cue tries, by position)."""
    if low.isascii():
        if "\x00" in low:
            return [(m.start(), m.end(), m.group()) for m in _CUE_WORD_ASCII_RE.finditer(low)]
        if "_" in low:
            return [(m.start(), m.end(), low[m.start():m.end()])
                    for m in _CUE_WORD_B_RE.finditer(low.replace("_", "\x00"))]
        return [(m.start(), m.end(), m.group()) for m in _CUE_WORD_B_RE.finditer(low)]
    matches = [(m.start(), m.end(), m.group()) for m in _CUE_WORD_RE.finditer(low)]
    if _NA_FIRST_RE.search(low) is not None:
        matches = sorted(matches + [(m.start(), m.end(), m.group()) for m in _CUE_WORD_NA_RE.finditer(low)],
                         key=lambda x: x[0])
    return matches
_STRUCT_RE = re.compile(_trie(sorted(STRUCT_LITERALS)))
_NA_FIRST_RE = re.compile("[" + re.escape("".join(sorted({w[0] for w in _CUE_LITERALS if not w[0].isascii()}))) + "]")
MAX_DOC_WORD = 64


# -------------------------------------------------------------------------------------------------
# Passages
# -------------------------------------------------------------------------------------------------

PAIR_NEAR = 80  # two cues of different kinds this close together open a passage
PAIR = ACT | YOU | TELL | AI
MAX_WORD_HITS = 256  # occurrences of one non-trigger cue word recorded per text (bounds work on huge texts)
MAX_CONTEXT_WORDS = 24  # distinct discussion / test-spec words of a document kept as context features
CONTEXT_VALUE = 0.5  # feature value of each document context word
ASK = REQ | CAP  # a request marker or a word for the reader's accounts/devices opens a passage next to an action verb
HIT = TRIG | PAIR | ASK
CJK_HIT = 1 << 20  # marks hits found by the CJK cue regex (no spaces after an imperative there)


def _pair_cats(m: int) -> int:
    c = m & PAIR
    if m & NOUN:
        c &= ~ACT
    return c


def _expand(text: str, a: int, b: int) -> tuple[int, int]:
    """The passage around ``text[a:b]``: to the nearest boundary, at most MAX_SIDE either side."""
    lo = max(0, a - MAX_SIDE)
    m = _REV_SEP_RE.search(text[lo:a][::-1])
    s = a - m.start() if m is not None else lo
    hi = min(len(text), b + MAX_SIDE)
    m2 = _SEP_RE.search(text, b, hi)
    e = m2.start() if m2 is not None else hi
    return s, max(e, b)


def _boundary_before(low: str, i: int) -> bool:
    """Whether position ``i`` starts a passage (only spaces, quotes, bullets since a boundary)."""
    j = i - 1
    k = max(-1, i - 6)
    while j > k:
        c = low[j]
        if c in "\n.!?:;>\"'{[(|。！？：；*-•" or c == "n" and j > 0 and low[j - 1] == "\\":
            return True
        if not c.isspace():
            return False
        j -= 1
    return j < 0


def cue_scan(text: str, low: str | None = None) -> tuple[list[tuple[int, int, int]], dict[str, int]]:
    """Cue hits of a document ``(start, end, mask)`` sorted by position, and its cue counts."""
    if low is None:
        low = text.lower()
    hits: list[tuple[int, int, int]] = []
    counts = {"you": 0, "discuss": 0, "meta": 0}
    ctx: list[int] = []
    ctxw: dict[str, None] = {}  # distinct discussion / test-spec words, in order of appearance
    seen: dict[str, int] = {}
    masks = _MASKS
    # (start, end, word or phrase, categories with TRIG, extra hit bits) of every cue, in this order:
    # words, multi-word phrases, CJK literals; each is recorded by the one loop below
    cues: list[tuple[int, int, str, int, int]] = []
    for i, end, word in _cue_words(low):
        m = masks.get(word)
        if m is None:
            m = token_mask(word) if len(word) <= MAX_DOC_WORD else 0
        if not m:
            continue
        if not m & TRIG:
            c = seen.get(word, 0)
            if c >= MAX_WORD_HITS:
                continue
            seen[word] = c + 1
        cues.append((i, end, word, m, 0))
    for i, end, phrase, m in _phrase_hits(low):
        cues.append((i, end, phrase, m | TRIG if m & STRONG else m, 0))
    if not low.isascii() and _CJK_RE.search(low):
        for mt in _CJK_CUE_RE.finditer(low):
            m = _CJK_CUES.get(mt.group(), 0)
            cues.append((mt.start(), mt.end(), mt.group(), m | TRIG if m & STRONG else m, CJK_HIT))
    for i, end, word, m, extra in cues:
        if m & HIT:
            hits.append((i, end, m | extra))
            if m & YOU:
                counts["you"] += 1
        if m & (DISC | META):
            ctx.append(i)
            if len(ctxw) < MAX_CONTEXT_WORDS:
                ctxw.setdefault(word, None)
            if m & DISC:
                counts["discuss"] += 1
            if m & META:
                counts["meta"] += 1
    for mt in _STRUCT_RE.finditer(low):
        hits.append((mt.start(), mt.end(), STRUCT | TRIG))
    hits.sort()
    ctx.sort()
    counts["ctx"] = ctx  # type: ignore[assignment]  # positions of discussion/test-spec words
    counts["ctxw"] = list(ctxw) + _doc_kinds(low)  # type: ignore[assignment]
    return hits, counts


_CODE_RE = re.compile(r"^[ \t]*(?:def |class |import |from \S+ import|function |const |let |var |#include|package |"
                      r"public |fn |func |SELECT |CREATE )", re.M | re.I)
_CHAT_RE = re.compile(r"^[ \t]*(?:\[[\d:/., apm]+\][ \t]*)?[\w .'-]{1,30}[:：][ \t]", re.M)
# Faster equivalents of the two patterns above (a test checks them against the originals):
# - anchored on the line break before a line instead of MULTILINE "^", so re jumps from one "\n" to
#   the next instead of trying every position (the first line is tried with .match); neither
#   pattern can match across a line break, so the matches are the same, line for line;
# - the chat pattern's leading "[ \t]*" and its name "[\w .'-]{1,30}" both take spaces, so on an
#   indented line re tried every split of the indentation against every name length. Written as
#   "whitespace up to the last tab, then the name with its leading spaces" it accepts the same
#   lines with one split each.
_CODE_NL_RE = re.compile("\n" + _CODE_RE.pattern[1:], re.I)
_CHAT_BODY = r"(?:[ \t]*\[[\d:/., apm]+\])?(?:[ \t]*\t)?(?:[ ]*[\w.'-][\w .'-]{0,29}|[ ]+)[:：][ \t]"
_CHAT_FIRST_RE = re.compile("^" + _CHAT_BODY)
_CHAT_NL_RE = re.compile("\n" + _CHAT_BODY)


# On lower-case ASCII text IGNORECASE changes nothing, and re is much faster without it.
_CODE_LOW_FIRST_RE = re.compile(_CODE_RE.pattern.replace("SELECT", "select").replace("CREATE", "create"))
_CODE_LOW_NL_RE = re.compile("\n" + _CODE_LOW_FIRST_RE.pattern[1:])


def _code_line(low: str, end: int) -> bool:
    """``_CODE_RE.search(low, 0, end) is not None`` for lower-cased ``low``, faster."""
    if low.isascii():
        return (_CODE_LOW_FIRST_RE.match(low, 0, end) is not None
                or _CODE_LOW_NL_RE.search(low, 0, end) is not None)
    return _CODE_RE.match(low, 0, end) is not None or _CODE_NL_RE.search(low, 0, end) is not None


def _chat_lines(low: str, end: int) -> int:
    """``len(_CHAT_RE.findall(low, 0, end))``, faster."""
    return (_CHAT_FIRST_RE.match(low, 0, end) is not None) + len(_CHAT_NL_RE.findall(low, 0, end))


def _doc_kinds(low: str) -> list[str]:
    """Coarse kinds of document (JSON, HTML, CSV, code, chat, e-mail, markdown) as context words."""
    head = low[:400].lstrip()
    kinds = []
    if head[:1] in "{[":
        kinds.append("\x03json")
    if head[:1] == "<" or "</" in head:
        kinds.append("\x03html")
    first = head.split("\n", 1)[0]
    if first.count(",") + first.count(";") >= 2 and "\n" in head and len(first) < 200:
        kinds.append("\x03csv")
    if _code_line(low, 4000):
        kinds.append("\x03code")
    if _chat_lines(low, 2000) >= 3:
        kinds.append("\x03chat")
    if head.startswith(("from:", "to:", "subject:", "de:", "von:", "发件人", "差出人", "보낸")) or "\nsubject:" in head:
        kinds.append("\x03email")
    if head.startswith("#") or "\n## " in low[:4000]:
        kinds.append("\x03md")
    return kinds


LEARNED_CJK_RE = re.compile("[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")


_WORD_RUN_RE = re.compile(r"\w+")


class LearnedOpener:
    """An induced opener lexicon (``model.json`` ``opener.learned``, see ``train.induce_opener``):
    whole words, lower-case; CJK entries (character bigrams) anywhere.

    :attr:`regex` is the lexicon as one regex; :meth:`spans` finds the same matches, faster: a text
    none of whose word runs is a lexicon word (most texts) costs one tokenising pass, and the words
    it does hold are found with ``str.find``. (A whole-word match ``\\bword\\b`` of a word made of
    letters is a maximal run of word characters equal to it.)
    """

    __slots__ = ("words", "regex", "pattern", "_plain", "_cjk", "_fast")

    def __init__(self, words: Sequence[str]) -> None:
        plain = sorted(w for w in words if not LEARNED_CJK_RE.search(w))
        cjk = sorted(w for w in words if LEARNED_CJK_RE.search(w))
        alts = ([r"\b(?:" + _trie(plain) + r")\b"] if plain else []) + ([_trie(cjk)] if cjk else [])
        self.words = tuple(words)
        self.regex = re.compile("|".join(alts))
        self.pattern = self.regex.pattern
        self._plain = frozenset(plain)
        self._cjk = re.compile(_trie(cjk)) if cjk else None
        self._fast = all(_is_word_char(c) for w in plain for c in w)

    def search(self, text: str) -> re.Match[str] | None:
        return self.regex.search(text)

    def spans(self, low: str, runs: WordRuns | None = None) -> list[tuple[int, int]]:
        """``(start, end)`` of the lexicon's matches in lower-cased ``low``, as ``regex.finditer``
        gives them. ``runs``: the word runs of ``low``, shared by the lexicons that read one text."""
        if not self._fast or self._cjk is not None and not low.isascii() and self._cjk.search(low) is not None:
            return [m.span() for m in self.regex.finditer(low)]  # CJK entries: the regex itself
        present = self._plain.intersection(runs.get() if runs is not None else _WORD_RUN_RE.findall(low))
        if not present:
            return []
        out = []
        n = len(low)
        for w in present:
            k = len(w)
            i = low.find(w)
            while i >= 0:
                j = i + k
                if (i == 0 or not _is_word_char(low[i - 1])) and (j == n or not _is_word_char(low[j])):
                    out.append((i, j))
                i = low.find(w, j)
        out.sort()
        return out


# On ASCII text every character that is no word character becomes a space, and str.split() gives
# the runs _WORD_RUN_RE finds (a test checks them), several times faster than the regex.
_NOT_WORD_ASCII = {i: " " for i in range(128) if not (chr(i).isalnum() or chr(i) == "_")}


class WordRuns:
    """The distinct ``\\w+`` runs of one lower-cased text (:attr:`low`), found the first time a
    lexicon or :func:`other_language` asks."""

    __slots__ = ("low", "_runs")

    def __init__(self, low: str) -> None:
        self.low = low
        self._runs: set[str] | None = None

    def get(self) -> set[str]:
        if self._runs is None:
            low = self.low
            self._runs = set(low.translate(_NOT_WORD_ASCII).split() if low.isascii() else _WORD_RUN_RE.findall(low))
        return self._runs


def _is_word_char(c: str) -> bool:
    """What ``\\w`` matches in a str pattern."""
    return c.isalnum() or c == "_"


_WORD_ONLY_RE = re.compile(r"\w+")


class SubstringOpener:
    """Words found anywhere, also inside longer words (``model.json`` ``opener.operate``): Chinese and
    Japanese are written without spaces and Korean attaches endings ("송금해", "이체하고")."""

    __slots__ = ("words", "regex")

    def __init__(self, words: Sequence[str]) -> None:
        self.words = tuple(words)
        self.regex = re.compile(_trie(sorted(set(words))))

    def spans(self, low: str) -> list[tuple[int, int]]:
        """``(start, end)`` of the matches in lower-cased ``low`` (none on ASCII text)."""
        if low.isascii():
            return []
        return [m.span() for m in self.regex.finditer(low)]


def compile_substrings(words: Sequence[str]) -> SubstringOpener | None:
    """A :class:`SubstringOpener` (None when the list is empty)."""
    return SubstringOpener(words) if words else None


def compile_opener(words: Sequence[str]) -> LearnedOpener | None:
    """A :class:`LearnedOpener` for an induced opener lexicon (None when the list is empty)."""
    return LearnedOpener(words) if words else None


def _with_action_hits(hits: list[tuple[int, int, int]], found: Sequence[tuple[int, int]], cat: int = ACT
                      ) -> list[tuple[int, int, int]]:
    """``hits`` plus ``found`` as hits of category ``cat`` (action verbs unless told), sorted; a span
    starting where a hit already starts is left out (the cue there decides)."""
    if not found:
        return hits
    have = {h[0] for h in hits}
    new = [(s, e, cat) for s, e in found if s not in have]
    return sorted(hits + new) if new else hits


def candidate_passages(text: str, findings: Sequence[Finding] = (), opener: LearnedOpener | None = None,
                       morphology: bool = False, verbs: LearnedOpener | None = None,
                       outputs: LearnedOpener | None = None, operate: SubstringOpener | None = None,
                       runs: WordRuns | None = None) -> tuple[list[tuple[int, int]], dict[str, int]]:
    """Passages of ``text`` worth scoring, and the document's cue counts (``you``, ``discuss``).

    A passage is opened by a strong cue (AI-addressing, override, secrecy, conditional,
    conversation structure; not the common words of :data:`NOT_TRIGGER`), an action verb at the
    start of a passage (an imperative) or followed by an address or URL (not the noun-like verbs of
    :data:`ACTION_NOUNS`), two weaker cues of different kinds within :data:`PAIR_NEAR` characters
    (second person, action verb, "tell/mention", AI or user words), or a rule finding. Only the
    first :data:`MAX_WORD_HITS` occurrences of a word that cannot open a passage alone count. Cue hits inside an open passage do not open
    another. ``opener``: a model's induced lexicon (:func:`compile_opener`); each of its words opens
    a passage on its own too. ``morphology``: words in an imperative form
    (:func:`toolbound._detect.morph.imperative_hits`) count as action verbs too, where no cue starts.
    ``verbs``: a model's list of imperative and infinitive verb forms (``model.json``
    ``opener.verbs``), whole words that count as action verbs too, where no cue starts.
    ``outputs``: a model's words for what the reader produces (``opener.outputs``: answer, summary,
    report, ...), whole words that count as "tell" cues, so one next to an action verb opens a passage
    ("in the reply, include the code ..."). ``operate``: a model's Chinese, Japanese and Korean words for
    operating an account (``opener.operate``: 变更, 登録, 송금, ...), found inside words (those scripts
    attach particles and endings), that count as action verbs, where no cue starts. ``runs``: the
    word runs of ``text.lower()``, when the caller shares them with :func:`language_counts`.
    """
    if runs is None:
        runs = WordRuns(text.lower())
    low = runs.low
    hits, counts = cue_scan(text, low)
    if opener is not None:
        learned = [(s, e, TRIG) for s, e in opener.spans(low, runs)]
        if learned:
            hits = sorted(hits + learned)
    if morphology:
        from toolbound._detect.morph import imperative_hits  # only models that read morphology need it

        hits = _with_action_hits(hits, imperative_hits(low))
    if verbs is not None:
        hits = _with_action_hits(hits, verbs.spans(low, runs))
    if operate is not None:
        hits = _with_action_hits(hits, operate.spans(low))
    if outputs is not None:
        hits = _with_action_hits(hits, outputs.spans(low, runs), TELL)
    spans: list[tuple[int, int]] = []
    last_end = -1
    nh = len(hits)
    for k, (s, e, m) in enumerate(hits):
        if s < last_end:
            continue
        if m & TRIG:
            pass
        elif m & ACT and ((_boundary_before(low, s) and (m & CJK_HIT or low[e:e + 1] == " "))
                          or (not m & NOUN and (low.find("@", e, e + 100) >= 0 or low.find("://", e, e + 100) >= 0))):
            pass
        elif m & ASK and any(abs(hits[q][0] - s) <= PAIR_NEAR and hits[q][2] & ACT
                             for q in range(max(0, k - 4), min(nh, k + 5)) if q != k):
            # "please ... install it", "pay with the stored card", "this account's settings ... disable"
            pass
        else:
            # two cues of different kinds close together ("you" + a verb, "the user" + "say", "if" + "you")
            own = _pair_cats(m)
            if not own or not any(abs(hits[q][0] - s) <= PAIR_NEAR and _pair_cats(hits[q][2]) & ~own
                                  for q in range(max(0, k - 4), min(nh, k + 5)) if q != k):
                continue
        ps, pe = _expand(text, s, e)
        spans.append((ps, pe))
        last_end = pe
    if findings:
        # A finding inside a cue passage or an earlier finding's passage opens none. The cue passages
        # are sorted and disjoint (bisect); a finding's passage starts at or before the finding, so
        # with findings in position order (the engine's) an earlier one covers a later one exactly
        # when it ends after its start. Asking every passage for every finding was quadratic.
        cue_starts = [ps for ps, _ in spans]
        cue_spans = list(spans)
        ordered = all(findings[k - 1].start <= findings[k].start for k in range(1, len(findings)))
        added_end = -1
        for f in findings:
            if f.end <= f.start:
                continue
            k = bisect_right(cue_starts, f.start) - 1
            if k >= 0 and f.start < cue_spans[k][1]:
                continue
            if ordered:
                if f.start < added_end:
                    continue
            elif any(ps <= f.start < pe for ps, pe in spans[len(cue_spans):]):
                continue
            ps, pe = _expand(text, f.start, min(f.end, f.start + 2 * MAX_SIDE))
            spans.append((ps, pe))
            added_end = max(added_end, pe)
        spans.sort()
    return spans, counts


# -------------------------------------------------------------------------------------------------
# Features of one passage (shared by training and inference)
# -------------------------------------------------------------------------------------------------

def _h(s: str) -> int:
    return zlib.crc32(s.encode("utf-8", "surrogatepass"))


def _mix(a: int, b: int) -> int:
    x = ((a * 0x9E3779B1) ^ b) & MASK32
    return (x ^ (x >> 16)) & MASK32


BOS = _h("\x02<s>")
LONG = "\x02long"


def passage_tokens(ptext: str) -> list[str]:
    """Tokens of a folded, lower-cased passage (at most :data:`MAX_TOKENS`), as written.

    Token features normalise them (:func:`norm_token`), so a token's features depend on it alone.
    """
    toks = _TOKEN_RE.findall(ptext)
    if len(toks) > MAX_TOKENS:
        del toks[MAX_TOKENS:]
    return toks


def norm_token(tok: str) -> str:
    """Digits become 0; overlong tokens (base64 runs, hashes) become one "long token"."""
    if len(tok) > MAX_TOKEN_LEN:
        return LONG
    if not tok.isalpha() and any(c.isdigit() for c in tok):
        return tok.translate(_DIGITS)
    return tok


def _is_cjk_token(tok: str) -> bool:
    return len(tok) == 1 and ("\u3040" <= tok <= "\u30ff" or "\u3400" <= tok <= "\u9fff" or "\uf900" <= tok <= "\ufaff")


def token_ids(tok: str) -> tuple[int, ...]:
    """Hashed feature indices of one token: its unigram and the character n-grams inside it."""
    tok = norm_token(tok)
    ids = [_h("w\x01" + tok) & (HASH_SIZE - 1)]
    if len(tok) >= 2 and tok != LONG and tok[0].isalnum():
        w = "<" + tok + ">"
        for n in CHAR_NGRAMS:
            for i in range(len(w) - n + 1):
                ids.append(_h("c\x01" + w[i:i + n]) & (HASH_SIZE - 1))
    return tuple(ids)


def token_info(tok: str) -> tuple[int, bool, int]:
    """``(bigram hash, is a CJK character, cue mask)`` of one token."""
    tok = norm_token(tok)
    return _h("t\x01" + tok), _is_cjk_token(tok), token_mask(tok)


def ngram_ids(hashes: Sequence[int], cjk: Sequence[bool]) -> list[int]:
    """Hashed indices of token bigrams (with a passage-start bigram) and CJK trigrams."""
    m = HASH_SIZE - 1
    out = []
    prev = BOS
    for h in hashes:
        out.append(_mix(prev, h) & m)
        prev = h
    if any(cjk):
        for i in range(len(hashes) - 2):
            if cjk[i] and cjk[i + 1] and cjk[i + 2]:
                out.append(_mix(_mix(hashes[i], hashes[i + 1]), hashes[i + 2] ^ 0x5BD1E995) & m)
    return out


DENSE_NAMES: tuple[str, ...] = (
    "ai", "you", "override", "action", "secrecy", "cond", "struct", "discuss",
    "imperative_start", "url", "email", "path", "tool_name", "account", "question", "exclaim", "caps",
    "ai&action", "ai&you", "you&action", "action&target", "override&action", "override&ai_you",
    "secrecy&ai_you", "neg&tell", "if&ai_you", "struct&action", "you_only_here", "doc_discuss",
    "doc_you_many", "rule_any", "rule_address", "rule_action", "rule_address&action", "doc_meta", "quoted",
    "local_context", "request&action", "capability&action",
) + tuple(f"rule:{f}" for f in RULE_FAMILIES)
_DENSE_INDEX = {n: i for i, n in enumerate(DENSE_NAMES)}
_RULE_INDEX = {f: _DENSE_INDEX[f"rule:{f}"] for f in RULE_FAMILIES}
_IMPERATIVE_FIRST = frozenset({
    "please", "do", "don't", "never", "always", "stop", "pretend", "act", "assume", "note", "attention",
    "important", "also", "instead", "now", "remember", "make", "ensure", "use", "go", "give", "provide",
    "let", "start", "begin", "answer", "list", "find", "check", "set", "put", "keep", "respond",
})
_COUNTED = 8  # the first 8 categories are counted; the others are flags
_QUOTES = frozenset("“”«»„「」『』‘’`")
_MASK_IDX: dict[int, tuple[int, ...]] = {}


def mask_indices(m: int) -> tuple[int, ...]:
    """Indices of the counted categories set in mask ``m`` (cached)."""
    r = _MASK_IDX.get(m)
    if r is None:
        r = _MASK_IDX[m] = tuple(b for b in range(_COUNTED) if m >> b & 1)
    return r


def mask_summary(toks: Sequence[str], masks: Sequence[int], low: str) -> tuple[int, list[int], int]:
    """``(union of masks, counts of the counted categories, index of the first word token)``.

    CJK cue words (which span several one-character tokens) are found in ``low`` directly.
    """
    allm = 0
    cnt = [0] * _COUNTED
    first = -1
    for i, m in enumerate(masks):
        if first < 0 and toks[i][0].isalpha():
            first = i
        if m:
            allm |= m
            for b in mask_indices(m):
                cnt[b] += 1
    if not low.isascii() and _CJK_RE.search(low):
        for mt in _CJK_CUE_RE.finditer(low):
            m = _CJK_CUES.get(mt.group(), 0)
            allm |= m
            for b in mask_indices(m):
                cnt[b] += 1
    return allm, cnt, first


def dense_features(raw: str, low: str, first_tok: str | None, first_mask: int, allm: int, cnt: Sequence[int],
                   doc_counts: dict[str, Any], rule_hits: dict[str, float], local_ctx: int = 0
                   ) -> list[tuple[int, float]]:
    """Engineered features of one passage as sparse ``(index into DENSE_NAMES, value)`` pairs.

    Args:
        raw: The passage as in the text (case kept).
        low: The folded, lower-cased passage.
        first_tok: Its first word token (``None`` when it has none), and ``first_mask`` its cue mask.
        allm: Union of the cue masks of its tokens; ``cnt`` counts of the counted categories.
        doc_counts: Cue counts of the whole document (``you``, ``discuss``).
        rule_hits: Strongest rule weight by family among findings inside the passage.
        local_ctx: Discussion / test-spec words within :data:`LOCAL_CONTEXT` characters of it.
    """
    v: list[tuple[int, float]] = []
    for i in range(_COUNTED):
        if cnt[i]:
            v.append((i, min(cnt[i], 3) / 3.0))
    ai, you, ov, act = allm & AI, allm & YOU, allm & OVR, allm & ACT
    url = "://" in low or "www." in low
    email = "@" in low and _EMAIL_RE.search(low) is not None
    path = ("/" in low or "\\" in low) and _PATH_RE.search(low) is not None
    tool = ("_" in low or "(" in low) and _TOOL_RE.search(low) is not None
    acct = bool(allm & ACCT)
    target = url or email or path or tool or acct
    if first_tok is not None and (first_mask & (ACT | OVR) or first_tok in _IMPERATIVE_FIRST):
        v.append((8, 1.0))
    for j, flag in ((9, url), (10, email), (11, path), (12, tool), (13, acct),
                    (14, "?" in raw or "？" in raw), (15, "!" in raw or "！" in raw),
                    (16, _CAPS_RE.search(raw) is not None),
                    (17, ai and act), (18, ai and you), (19, you and act), (20, act and target), (21, ov and act),
                    (22, ov and (ai or you)), (23, allm & SEC and (ai or you)), (24, allm & NEG and allm & TELL),
                    (25, allm & IFW and (ai or you)), (26, allm & STRUCT and act),
                    (37, allm & REQ and act), (38, allm & CAP and act)):
        if flag:
            v.append((j, 1.0))
    you_doc = doc_counts.get("you", 0)
    if you and you_doc <= cnt[1]:
        v.append((27, 1.0))
    if doc_counts.get("discuss", 0):
        v.append((28, min(doc_counts["discuss"], 6) / 6.0))
    if you_doc >= 6:
        v.append((29, 1.0))
    if doc_counts.get("meta", 0):
        v.append((34, min(doc_counts["meta"], 6) / 6.0))
    if raw[:1] in _QUOTES or raw[-1:] in _QUOTES:
        v.append((35, 1.0))
    if local_ctx:
        v.append((36, min(local_ctx, 4) / 4.0))
    if rule_hits:
        addr = max((w for f, w in rule_hits.items() if f in ADDRESS_FAMILIES), default=0.0)
        actn = max((w for f, w in rule_hits.items() if f in ACTION_FAMILIES), default=0.0)
        v.append((30, max(rule_hits.values())))
        v.append((31, addr))
        v.append((32, actn))
        v.append((33, min(addr, actn)))
        for f, w in rule_hits.items():
            j = _RULE_INDEX.get(f)
            if j is not None:
                v.append((j, w))
    return v


BOW_FLOOR = True
"""Round 190 (G190): the document's bag of words may argue for a passage the passage model reads as an
order (best passage logit above 0), never against it; its logit is floored at 0 there. Training
writes the switch into ``model.json`` (``doc.bow_floor``) and :class:`Model` reads it from there, so
weights trained without it keep their meaning."""

MAX_LOGIT_HINGES = (0, 2, 4, 6)
BOW_LOGIT_HINGES = (-2, 0, 2)
"""Knots of the piecewise-linear combiner inputs (round 30): ``max_logit_h4`` is max(0, best passage
logit - 4) / 5, ``bow_logit_hm2`` max(0, bag-of-words logit + 2) / 5."""
_MAX_HINGE_KEYS = tuple((k, f"max_logit_h{k}") for k in MAX_LOGIT_HINGES)
_BOW_HINGE_KEYS = tuple((k, f"bow_logit_h{k}".replace("-", "m")) for k in BOW_LOGIT_HINGES)
DOC_ALL_NAMES: tuple[str, ...] = ("max_logit", "second_logit", "second_logit_pos", "has_passage",
                                  "log1p_positive_passages", "log1p_passages", "log1p_live_passages_m2",
                                  "log1p_live_passages_m4", "rule_score", "rule_flag",
                                  "rule_address", "rule_action", "doc_discuss", "doc_meta", "bow_logit", "non_english",
                                  "non_english_max", "non_english_bow", "other_language", "other_language_max",
                                  "other_language_bow") + tuple(
    f"max_logit_h{k}" for k in MAX_LOGIT_HINGES) + tuple(
    f"bow_logit_h{k}".replace("-", "m") for k in BOW_LOGIT_HINGES) + ("max_x_bow",)
DOC_NAMES: tuple[str, ...] = ("max_logit", "second_logit_pos", "log1p_positive_passages", "log1p_passages",
                              "log1p_live_passages_m4",
                              "doc_discuss", "doc_meta", "bow_logit", "max_logit_h0", "max_logit_h2", "max_logit_h4", "max_logit_h6",
                              "bow_logit_hm2", "bow_logit_h0", "bow_logit_h2", "other_language",
                              "other_language_max", "other_language_bow")
"""The document features the combiner uses. Rule evidence enters through the passages (rule hits by
family are passage features): on the dev split, document-level rule features made the combiner
trust rules that fire on hard negatives (quoted attacks in test specs), and lost recall at low FPR.
``bow_logit`` (a bag-of-words logistic regression over the whole document, round 16 of
``benchmarks/model_selection.md``) lifted the dev criterion from 0.676 to 0.762. Round 32 added how
far the document is from English and hinges of the best passage and bag-of-words logits (a strong
passage is not outvoted linearly by an ordinary-looking carrier): paired dev 0.845 -> 0.863. The
passage model's logits run lower, in both classes, in languages with less training data. Round 33
measures that as evidence of another language (:func:`other_language`) instead of a lack of English
function words (``non_english``, which called English JSON foreign): 0.869. Round 196 charges every
candidate passage (``log1p_passages``); round 198 adds the number of passages the model cannot
dismiss (``log1p_live_passages_m4``, logit above -4), so that the clearly benign parts of a long
document (a README's install and licence sections) weigh less against the injection beside them."""


ENGLISH_WORDS = ("the", "and", "of", "to", "is", "are", "you", "your", "for", "this", "that", "with", "be", "on",
                 "it", "from", "by", "we", "our", "will", "have", "not", "an", "at", "or")
"""English function words: a document holding few of them is read as not English (``non_english``)."""
ENGLISH_ENOUGH = 4
_ENGLISH_RE = re.compile(r"\b(?:" + "|".join(ENGLISH_WORDS) + r")\b")
LANGUAGE_NAMES = frozenset({"non_english", "non_english_max", "non_english_bow"})
"""Combiner inputs that need :func:`english_words` in the document counts (``en``)."""
OTHER_LANGUAGE_NAMES = frozenset({"other_language", "other_language_max", "other_language_bow"})
"""Combiner inputs that need :func:`other_language` in the document counts (``other``)."""
FOREIGN_WORDS = (
    # Spanish, French, German, Italian, Portuguese function words that are not also English words,
    # abbreviations or name parts ("per", "non", "die", "con", "des", "est", "com", "los", "las",
    # "del", "mit", "il", "dos" are left out)
    "el", "que", "por", "una", "pero", "está", "también", "esta", "este",
    "une", "pour", "avec", "dans", "vous", "nous", "qui", "cette", "sont", "mais",
    "der", "und", "nicht", "ist", "sie", "ein", "eine", "für", "auf", "bitte", "wir", "ihr",
    "che", "della", "sono", "gli", "questo", "anche", "essere",
    "não", "você", "uma", "mais", "seu", "sua", "também",
)
_FOREIGN_RE = re.compile(r"\b(?:" + "|".join(sorted(set(FOREIGN_WORDS), key=len, reverse=True)) + r")\b")
_FOREIGN_SET = frozenset(FOREIGN_WORDS)
_ENGLISH_SET = frozenset(ENGLISH_WORDS)
# On ASCII text the same words with re.ASCII (the same matches there, found faster)
_FOREIGN_ASCII_RE = re.compile(_FOREIGN_RE.pattern, re.ASCII)
_ENGLISH_ASCII_RE = re.compile(_ENGLISH_RE.pattern, re.ASCII)
_NON_LATIN_RE = re.compile("[\u0370-\u03ff\u0400-\u052f\u0590-\u06ff\u0750-\u077f\u0900-\u0dff\u0e00-\u0e7f"
                           "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
NON_LATIN_ENOUGH = 20


def other_language(low: str, runs: WordRuns | None = None) -> float:
    """How clearly lower-cased ``low`` (its first 4,000 characters) is written in a language other than
    English (round 33 of ``benchmarks/model_selection.md``): 1.0 with at least :data:`NON_LATIN_ENOUGH`
    letters of a non-Latin script; else min(k, 4) / 4 for k >= 2 distinct :data:`FOREIGN_WORDS`
    when there are more of them than distinct :data:`ENGLISH_WORDS`; else 0.0. English JSON without
    function words is 0.0, not "not English".

    ``runs``: ``low``'s word runs (:class:`WordRuns`). A word of either list matched whole is a
    maximal run of word characters equal to it, so on a text of at most 4,000 characters the counts
    are those of its runs' intersections with the lists (a test checks both ways)."""
    head = low[:4000]
    foreign_re, english_re = _FOREIGN_ASCII_RE, _ENGLISH_ASCII_RE
    if not head.isascii():
        foreign_re, english_re = _FOREIGN_RE, _ENGLISH_RE
        n = 0
        for _ in _NON_LATIN_RE.finditer(head):
            n += 1
            if n >= NON_LATIN_ENOUGH:
                return 1.0
    if runs is not None and len(low) <= 4000:
        words = runs.get()
        k = min(len(_FOREIGN_SET.intersection(words)), ENGLISH_ENOUGH)
        if k < 2 or len(_ENGLISH_SET.intersection(words)) >= k:
            return 0.0
        return k / ENGLISH_ENOUGH
    foreign: set[str] = set()
    for m in foreign_re.finditer(head):
        foreign.add(m.group())
        if len(foreign) >= ENGLISH_ENOUGH:
            break
    if len(foreign) < 2:
        return 0.0  # one word ("per", "non", "die") is as likely an English text's
    english: set[str] = set()
    for m in english_re.finditer(head):
        english.add(m.group())
        if len(english) >= len(foreign):
            return 0.0
    return min(len(foreign), ENGLISH_ENOUGH) / ENGLISH_ENOUGH


def language_needs(names: Sequence[str]) -> tuple[bool, bool]:
    """Whether combiner inputs ``names`` need :func:`english_words` (``en``) and :func:`other_language`
    (``other``) in the document counts."""
    return not LANGUAGE_NAMES.isdisjoint(names), not OTHER_LANGUAGE_NAMES.isdisjoint(names)


def language_counts(text: str, english: bool, other: bool, runs: WordRuns | None = None) -> dict[str, float]:
    """The document counts the language inputs read (see :func:`language_needs`); training and
    inference both fill them here. ``runs``: the word runs of ``text.lower()``, when the caller
    has them (:func:`candidate_passages` found them)."""
    out: dict[str, float] = {}
    if english or other:
        low = text.lower() if runs is None else runs.low
        if english:
            out["en"] = english_words(low)
        if other:
            out["other"] = other_language(low, runs)
    return out


def english_words(low: str) -> int:
    """Distinct :data:`ENGLISH_WORDS` in lower-cased ``low``'s first 4,000 characters, counted up to
    :data:`ENGLISH_ENOUGH` (round 29 of ``benchmarks/model_selection.md``)."""
    seen: set[str] = set()
    for m in _ENGLISH_RE.finditer(low, 0, 4000):
        seen.add(m.group())
        if len(seen) >= ENGLISH_ENOUGH:
            break
    return len(seen)


LIVE_FLOORS = (-4.0, -2.0)
"""Passage logit floors of ``log1p_live_passages_m4`` and ``_m2`` (round 197): passages above them
count. :data:`DOC_NAMES` reads the -4 count beside ``log1p_passages`` since round 198."""


def doc_features(logits: Sequence[float], rule: float, findings: Sequence[Finding],
                 doc_counts: dict[str, Any], names: Sequence[str] | None = None, bow: float = 0.0,
                 bow_floor: bool = False) -> list[float]:
    """Document-level features for the combiner (:data:`DOC_NAMES`, or ``names`` from DOC_ALL_NAMES).

    ``bow``: the document bag-of-words logit (:func:`doc_bow_ids`), used when ``bow_logit`` is named.
    ``bow_floor`` (:data:`BOW_FLOOR`): a negative ``bow`` counts as 0 when the best passage logit is
    above 0, before every feature made from it.
    """
    m1 = m2 = NO_PASSAGE_LOGIT
    npos = live2 = live4 = 0
    for x in logits:
        if x > m1:
            m1, m2 = x, m1
        elif x > m2:
            m2 = x
        if x > 0:
            npos += 1
        if x > LIVE_FLOORS[0]:
            live4 += 1
            if x > LIVE_FLOORS[1]:
                live2 += 1
    if bow_floor and m1 > 0.0 and bow < 0.0:
        bow = 0.0
    addr = actn = 0.0
    for f in findings:
        if f.family in ADDRESS_FAMILIES:
            addr = max(addr, f.score)
        elif f.family in ACTION_FAMILIES:
            actn = max(actn, f.score)
    full = {
        "max_logit": max(-10.0, min(10.0, m1)) / 5.0,
        "second_logit": max(-10.0, min(10.0, m2)) / 5.0,
        "second_logit_pos": max(0.0, min(10.0, m2)) / 5.0,  # a missing or negative second passage: 0
        "has_passage": float(bool(logits)),
        "log1p_positive_passages": math.log1p(npos),
        "log1p_passages": math.log1p(len(logits)),  # every scored passage, however weak (round 196)
        # passages the model cannot dismiss, above a logit floor (round 197; -4 beside every passage
        # since round 198): a document's clearly benign parts dilute the injection beside them less
        "log1p_live_passages_m2": math.log1p(live2),
        "log1p_live_passages_m4": math.log1p(live4),
        "rule_score": rule,
        "rule_flag": float(rule >= 0.5),
        "rule_address": addr,
        "rule_action": actn,
        "doc_discuss": min(doc_counts.get("discuss", 0), 6) / 6.0,
        "doc_meta": min(doc_counts.get("meta", 0), 6) / 6.0,
        "bow_logit": max(-10.0, min(10.0, bow)) / 5.0,
    }
    m1c = min(10.0, m1)
    for k, key in _MAX_HINGE_KEYS:
        full[key] = max(0.0, m1c - k) / 5.0
    bw = max(-10.0, min(10.0, bow))
    for k, key in _BOW_HINGE_KEYS:
        full[key] = max(0.0, bw - k) / 5.0
    full["max_x_bow"] = full["max_logit"] * full["bow_logit"]
    if "other" in doc_counts:
        other = doc_counts["other"]
        full["other_language"] = other
        full["other_language_max"] = other * full["max_logit"]
        full["other_language_bow"] = other * full["bow_logit"]
    if "en" in doc_counts:
        non_en = 1.0 - min(doc_counts["en"], ENGLISH_ENOUGH) / ENGLISH_ENOUGH
        full["non_english"] = non_en
        full["non_english_max"] = non_en * full["max_logit"]
        full["non_english_bow"] = non_en * full["bow_logit"]
    return [full[n] for n in (DOC_NAMES if names is None else names)]


@dataclass(slots=True)
class PassageRow:
    """One candidate passage as training sees it."""

    start: int
    end: int
    ids: list[int]          # hashed indices (token features, then n-grams); repeats count
    scale: float
    dense: list[tuple[int, float]]  # sparse (index into DENSE_NAMES, value)
    ctx_ids: list[int]      # hashed document context words (value CONTEXT_VALUE each)


LOCAL_CONTEXT = 300  # characters around a passage searched for discussion / test-spec words


def _local_ctx(doc_counts: dict[str, Any], s: int, e: int) -> int:
    pos = doc_counts.get("ctx")
    if not pos:
        return 0
    return bisect_right(pos, e + LOCAL_CONTEXT) - bisect_left(pos, s - LOCAL_CONTEXT)


class IndexedFindings(list):  # type: ignore[type-arg]
    """A document's findings with a :class:`SpanIndex` over them, so that each passage asks only the
    findings near it (:func:`_rule_hits`); a list otherwise."""

    __slots__ = ("spans",)

    def __init__(self, findings: Sequence[Finding]) -> None:
        super().__init__(findings)
        self.spans = SpanIndex([(f.start, f.end) for f in self]) if len(self) > INDEX_FINDINGS else None


INDEX_FINDINGS = 16  # fewer findings are simply scanned


def _rule_hits(findings: Sequence[Finding], s: int, e: int) -> dict[str, float]:
    """The strongest finding score per family among ``findings`` that meet passage ``[s, e)`` (or
    start where it starts)."""
    out: dict[str, float] = {}
    index = findings.spans if isinstance(findings, IndexedFindings) else None
    near = findings if index is None else [findings[k] for k in index.candidates(s, max(s, e))]
    for f in near:
        if (f.start < e and s < f.end) or f.start == s:
            if f.score > out.get(f.family, 0.0):
                out[f.family] = f.score
    return out


def _fold_low(raw: str) -> str:
    """The passage folded as the engine folds text (lookalikes, invisibles, NFKC), lower-cased.

    fold() is skipped when it would change nothing: no character its tables touch (the engine's
    own ``_SPECIAL`` and ``_MIXED_SCRIPT`` patterns say which) occurs in the passage.
    """
    if raw.isascii():
        return raw.lower()
    from toolbound._detect import fold as fold_mod

    special = getattr(fold_mod, "_SPECIAL", None)
    mixed = getattr(fold_mod, "_MIXED_SCRIPT", None)
    if special is not None and mixed is not None and special.search(raw) is None and mixed.search(raw) is None:
        return raw.lower()
    return fold_mod.fold(raw).text.lower()


def context_ids(doc_counts: dict[str, Any]) -> list[int]:
    """Hashed features of the document's discussion / test-spec words (shared by its passages)."""
    return [_h("d\x01" + w) & (HASH_SIZE - 1) for w in doc_counts.get("ctxw", ())]


BOW_MAX_TOKENS = 4000
"""Tokens of a document read by the bag-of-words part (the first ones; the rest is ignored)."""


# ASCII text: the tokens of _ASCII_TOKEN_RE (runs of [a-z0-9], runs of characters that are neither
# word characters nor whitespace) found with two str.translate + split passes, about twice as fast as
# the regex; tests/test_model.py checks that they give the same tokens.
_BOW_ALNUM = str.maketrans({c: " " for c in map(chr, range(128)) if not (c.islower() or c.isdigit())})
_BOW_PUNCT = str.maketrans({c: " " for c in map(chr, range(128)) if c.isalnum() or c == "_" or c.isspace()})


# The address's local part starts where a run of its characters starts (the lookbehind): without it
# a long run with no "@" after it was read again from each of its characters, quadratic in the run
# ("QUFB..." * 10,000 then one address took 2.6 s for 40 K characters). A run that reaches "@"
# matched from its first character before too, so the matches are the same except where one address
# is glued to the end of another by "." or "+" ("a@b.com.+x@y.com": the second is no longer masked);
# tests/test_model.py compares the two patterns.
_BOW_MASK_RE = re.compile(r"(?P<url>(?:https?|ftp)://[^\s<>\"')\]]+|www\.[^\s<>\"')\]]+)"
                          r"|(?P<email>(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+)", re.I)


def _bow_mask(m: re.Match[str]) -> str:
    return " zzurl " if m.group("url") else " zzemail "


def mask_links(text: str) -> str:
    """E-mail addresses and URLs replaced by one placeholder token each (``zzemail``, ``zzurl``):
    the bag of words then sees that a text holds an address, not which (doc_bow ``mask``)."""
    if "@" not in text and "://" not in text and "www." not in text.lower():
        return text
    return _BOW_MASK_RE.sub(_bow_mask, text)


def _bow_raw_tokens(text: str, mask: bool = False) -> list[str]:
    """The document's first :data:`BOW_MAX_TOKENS` tokens, in no particular order (only the set of
    them counts); with ``mask``, after :func:`mask_links`."""
    if mask:
        text = mask_links(text)
    if text.isascii():
        low = text.lower()
        words = low.translate(_BOW_ALNUM).split()
        puncts = low.translate(_BOW_PUNCT).split()
        if len(words) + len(puncts) <= BOW_MAX_TOKENS:
            return words + puncts
        toks = _ASCII_TOKEN_RE.findall(low)  # more than the cap: the first ones, in text order
    else:
        toks = _TOKEN_RE.findall(_fold_low(text))
    del toks[BOW_MAX_TOKENS:]
    return toks


def bow_text(text: str, spans: Sequence[tuple[int, int]] | None) -> str:
    """What the bag of words reads: the whole document, or (scope ``passages``) its candidate
    passages joined by newlines."""
    return text if spans is None else "\n".join(text[s:e] for s, e in spans)


def doc_bow_tokens(text: str, spans: Sequence[tuple[int, int]] | None = None, mask: bool = False) -> list[str]:
    """The distinct normalised tokens of the first :data:`BOW_MAX_TOKENS` tokens of
    :func:`bow_text`, sorted."""
    return sorted({norm_token(t) for t in _bow_raw_tokens(bow_text(text, spans), mask)})


def bow_token_ids(tok: str, subwords: Sequence[int] = ()) -> list[int]:
    """Hashed indices (into the second weight block) of one normalised token for the bag of words:
    the token itself and, with ``subwords`` (n-gram lengths, doc_bow ``subwords``), the character
    n-grams of ``<token>`` for tokens of at least 2 characters that start with a letter or digit."""
    ids = [_h("b\x01" + tok) & (HASH_SIZE - 1)]
    if subwords and len(tok) >= 2 and tok != LONG and tok[0].isalnum():
        w = "<" + tok + ">"
        for n in subwords:
            for i in range(len(w) - n + 1):
                ids.append(_h("B\x01" + w[i:i + n]) & (HASH_SIZE - 1))
    return ids


def doc_bow_ids(text: str, spans: Sequence[tuple[int, int]] | None = None,
                mask: bool = False, subwords: Sequence[int] = ()) -> tuple[list[int], float]:
    """Hashed indices (into the second weight block) of the distinct tokens of :func:`bow_text` (with
    their character n-grams when ``subwords`` names their lengths; a gram shared by several tokens
    counts once per token), and the scale ``1/sqrt(distinct tokens + 1)``: the bag-of-words part of
    the document combiner (``bow_logit``)."""
    toks = doc_bow_tokens(text, spans, mask)
    return [i for t in toks for i in bow_token_ids(t, subwords)], 1.0 / math.sqrt(len(toks) + 1)


def extract(text: str, findings: Sequence[Finding] = (), opener: LearnedOpener | None = None,
            morphology: bool = False, verbs: LearnedOpener | None = None, outputs: LearnedOpener | None = None,
            operate: SubstringOpener | None = None) -> tuple[list[PassageRow], dict[str, int]]:
    """Every candidate passage of ``text`` with its features (training and tests use this)."""
    if len(findings) > INDEX_FINDINGS:
        findings = IndexedFindings(findings)
    spans, counts = candidate_passages(text, findings, opener, morphology, verbs, outputs, operate)
    cids = context_ids(counts)
    rows = []
    for s, e in spans:
        raw = text[s:e]
        low = _fold_low(raw)
        toks = passage_tokens(low)
        if not toks:
            continue
        infos = [token_info(t) for t in toks]
        hashes = [x[0] for x in infos]
        cjk = [x[1] for x in infos]
        masks = [x[2] for x in infos]
        allm, cnt, first = mask_summary(toks, masks, low)
        dense = dense_features(raw, low, toks[first] if first >= 0 else None, masks[first] if first >= 0 else 0,
                               allm, cnt, counts, _rule_hits(findings, s, e) if findings else {},
                               _local_ctx(counts, s, e))
        ids: list[int] = []
        for t in toks:
            ids.extend(token_ids(t))
        ids.extend(ngram_ids(hashes, cjk))
        rows.append(PassageRow(s, e, ids, 1.0 / math.sqrt(len(toks) + 1), dense, cids))
    return rows, counts


# -------------------------------------------------------------------------------------------------
# The shipped model
# -------------------------------------------------------------------------------------------------

class ModelError(ValueError):
    """The shipped weights are missing, corrupt or do not match their metadata."""


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    ez = math.exp(z)
    return ez / (1.0 + ez)


_LANG_CODE_RE = re.compile(r"[a-z]{2}")


class Model:
    """Loaded weights plus a per-process cache of token weight sums.

    Args:
        weights: The hashed weights (float32, :data:`HASH_SIZE` entries).
        meta: The parsed ``model.json``.
    """

    def __init__(self, weights: array, meta: dict[str, Any]) -> None:
        if meta.get("feature_version") != FEATURE_VERSION:
            raise ModelError(f"model.json has feature_version {meta.get('feature_version')!r}; this code "
                             f"extracts version {FEATURE_VERSION}: retrain with python -m toolbound._detect.train")
        self.has_bow = "bow_logit" in meta["doc"]["names"]
        blocks = 2 if self.has_bow else 1  # the bag-of-words weights follow the passage weights
        if meta.get("hash_bits") != HASH_BITS or len(weights) != blocks * HASH_SIZE:
            raise ModelError("model.bin does not have the hash size model.json declares")
        if self.has_bow and "doc_bow" not in meta:
            raise ModelError("model.json names bow_logit but has no doc_bow section: retrain")
        if list(meta["passage"]["dense_names"]) != list(DENSE_NAMES) or not set(meta["doc"]["names"]) <= set(
                DOC_ALL_NAMES) or len(meta["doc"]["names"]) != len(meta["doc"]["weights"]):
            raise ModelError("model.json's feature names do not match this code: retrain")
        self.doc_names = tuple(meta["doc"]["names"])
        self.needs_english, self.needs_other = language_needs(self.doc_names)
        self.bow_floor = bool(meta["doc"].get("bow_floor", False))
        floor = meta["doc"].get("rule_floor")
        self.rule_floor: float | None = None if floor is None else float(floor)
        self.meta = meta
        self.w = weights
        self.bias = float(meta["passage"]["bias"])
        self.wd = [float(x) for x in meta["passage"]["dense"]]
        self.doc_w = [float(x) for x in meta["doc"]["weights"]]
        self.doc_b = float(meta["doc"]["bias"]) - float(meta["doc"]["threshold_logit"])
        # token -> (weight sum of its own features, bigram hash, is CJK, cue mask, starts with a
        # letter, counted cue categories)
        self._cache: dict[str, tuple[float, int, bool, int, bool, tuple[int, ...]]] = {}
        # scores of short texts without findings (status values, names, labels repeat a lot)
        self._short: dict[str, float] = {}
        self.bow_bias = float(meta["doc_bow"]["bias"]) if self.has_bow else 0.0
        self.bow_scope = meta["doc_bow"].get("scope", "document") if self.has_bow else "document"
        self.bow_mask = bool(meta["doc_bow"].get("mask", False)) if self.has_bow else False
        self.bow_subwords = tuple(int(n) for n in meta["doc_bow"].get("subwords", ())) if self.has_bow else ()
        if any(n < 1 for n in self.bow_subwords):
            raise ModelError(f"model.json's doc_bow subwords {self.bow_subwords!r} are not n-gram lengths: retrain")
        if self.bow_scope not in ("document", "passages"):
            raise ModelError(f"model.json's doc_bow scope {self.bow_scope!r} is unknown: retrain")
        self._bow: dict[str, tuple[str, float]] = {}  # raw token -> (normalised, bag-of-words weight)
        learned = meta.get("opener", {}).get("learned", [])
        if not isinstance(learned, list) or not all(isinstance(w, str) and w for w in learned):
            raise ModelError("model.json's opener.learned must be a list of words: retrain")
        self.opener = compile_opener(learned)
        morphology = meta.get("opener", {}).get("morphology", False)
        if not isinstance(morphology, bool):
            raise ModelError("model.json's opener.morphology must be true or false: retrain")
        self.morphology = morphology
        verbs = meta.get("opener", {}).get("verbs", [])
        if (not isinstance(verbs, list) or not all(isinstance(w, str) and w and _WORD_ONLY_RE.fullmatch(w) for w in verbs)):
            raise ModelError("model.json's opener.verbs must be a list of single words: retrain")
        self.verbs = compile_opener(verbs)
        outputs = meta.get("opener", {}).get("outputs", [])
        if (not isinstance(outputs, list) or not all(isinstance(w, str) and w and _WORD_ONLY_RE.fullmatch(w)
                                                     for w in outputs)):
            raise ModelError("model.json's opener.outputs must be a list of single words: retrain")
        self.outputs = compile_opener(outputs)
        operate = meta.get("opener", {}).get("operate", [])
        if not isinstance(operate, list) or not all(isinstance(w, str) and w and not w.isascii() for w in operate):
            raise ModelError("model.json's opener.operate must be a list of non-ASCII words: retrain")
        self.operate = compile_substrings(operate)
        langs = meta.get("training", {}).get("languages")
        if langs is not None and (not isinstance(langs, list) or not langs or not all(
                isinstance(x, str) and _LANG_CODE_RE.fullmatch(x) for x in langs)):
            raise ModelError("model.json's training.languages must be a list of ISO 639-1 codes: retrain")
        # The languages of the records it learnt from; None: the model does not say (no fallback).
        self.languages: frozenset[str] | None = None if langs is None else frozenset(langs)
        self._lock = threading.Lock()
        # Round 42: an expert model for texts in the languages it names (loaded on first use).
        self.directory: Path | None = None  # where load() read the files (the expert lives beside them)
        ex = meta.get("expert")
        if ex is not None and (not isinstance(ex, dict) or not isinstance(ex.get("dir"), str)
                               or not isinstance(ex.get("weights_sha256"), str)
                               or not isinstance(ex.get("languages"), list) or not ex["languages"]
                               or not all(isinstance(x, str) and _LANG_CODE_RE.fullmatch(x) for x in ex["languages"])):
            raise ModelError("model.json's expert must name a dir, weights_sha256 and languages: retrain")
        self.expert_languages: frozenset[str] = frozenset(ex["languages"]) if ex else frozenset()
        self._expert: Model | None = None
        self._route: dict[str, Model] = {}  # short text -> the model that scores it

    @classmethod
    def load(cls, directory: str | Path | None = None) -> Model:
        """Read ``model.bin`` and ``model.json`` from ``directory`` (default: beside this module).

        No network, no numpy: the weights are read with :mod:`array`.
        """
        d = Path(directory) if directory is not None else MODEL_DIR
        try:
            meta = json.loads((d / META_FILE).read_text(encoding="utf-8"))
            raw = (d / WEIGHTS_FILE).read_bytes()
        except (OSError, ValueError) as exc:
            raise ModelError(f"cannot read the model in {d}: {exc}") from None
        if hashlib.sha256(raw).hexdigest() != meta.get("weights_sha256"):
            raise ModelError(f"{d / WEIGHTS_FILE} does not match the SHA-256 in {META_FILE}")
        w = array("f")
        w.frombytes(raw)
        if sys.byteorder != "little":  # pragma: no cover - stored little-endian
            w.byteswap()
        model = cls(w, meta)
        model.directory = d
        return model

    def expert(self) -> Model:
        """The expert model ``model.json`` names, loaded on first use (thread-safe); its weights must
        be the ones named."""
        if self._expert is None:
            with self._lock:
                if self._expert is None:
                    ex = self.meta["expert"]
                    if self.directory is None:
                        raise ModelError("this model names an expert but was not loaded from a directory")
                    expert = Model.load(self.directory / ex["dir"])
                    if expert.meta.get("weights_sha256") != ex["weights_sha256"]:
                        raise ModelError(f"{self.directory / ex['dir']} is not the expert {META_FILE} names: retrain")
                    self._expert = expert
        return self._expert

    def for_text(self, text: str) -> Model:
        """The model that scores ``text``: the expert when the text is in one of its languages
        (:func:`toolbound._detect.langid.added_language`), else this one."""
        if not self.expert_languages:
            return self
        short = len(text) <= SHORT_TEXT
        if short:
            hit = self._route.get(text)
            if hit is not None:
                return hit
        model = self.expert() if added_language(text) in self.expert_languages else self
        if short:
            if len(self._route) >= SHORT_CACHE_LIMIT:
                self._route.clear()
            self._route[text] = model
        return model

    def clear_short(self) -> None:
        """Empty the per-text score cache of this model and of its expert when loaded."""
        self._short.clear()
        self._route.clear()
        if self._expert is not None:
            self._expert._short.clear()

    # -- scoring ------------------------------------------------------------------------------

    def _token_entry(self, tok: str) -> tuple[float, int, bool, int, bool, tuple[int, ...]]:
        w = self.w
        v = 0.0
        for i in token_ids(tok):
            v += w[i]
        h, cjk, m = token_info(tok)
        entry = (v, h, cjk, m, tok[0].isalpha(), mask_indices(m))
        if len(tok) > MAX_TOKEN_LEN:
            return entry  # not cached: long tokens rarely repeat
        self._remember(self._cache, tok, entry)
        return entry

    def _remember(self, cache: dict[str, Any], key: str, entry: Any) -> None:
        """Store ``entry`` in a per-process cache, emptied when it reaches :data:`TOKEN_CACHE_LIMIT`."""
        if len(cache) >= TOKEN_CACHE_LIMIT:
            with self._lock:
                cache.clear()
        cache[key] = entry

    def passage_logit(self, text: str, s: int, e: int, findings: Sequence[Finding], doc_counts: dict[str, Any],
                      context: float | None = None) -> float | None:
        """The logit of passage ``text[s:e]`` (``None`` when it has no tokens).

        Same features as :func:`extract` (a test checks it), computed in one loop over the tokens.
        """
        raw = text[s:e]
        if raw.isascii():
            low = raw.lower()
            toks = _ASCII_TOKEN_RE.findall(low)
        else:
            low = _fold_low(raw)
            toks = _TOKEN_RE.findall(low)
        if not toks:
            return None
        if len(toks) > MAX_TOKENS:
            del toks[MAX_TOKENS:]
        cache = self._cache
        entry = self._token_entry
        w = self.w
        hmask = HASH_SIZE - 1
        acc = 0.0
        prev = BOS
        allm = 0
        cnt = [0] * _COUNTED
        first_tok = None
        first_mask = 0
        any_cjk = False
        hashes = []
        for t in toks:
            c = cache.get(t) or entry(t)
            h = c[1]
            x = ((prev * 0x9E3779B1) ^ h) & MASK32
            acc += c[0] + w[(x ^ (x >> 16)) & hmask]
            prev = h
            hashes.append(h)
            if c[3]:
                allm |= c[3]
                for b in c[5]:
                    cnt[b] += 1
            if first_tok is None and c[4]:
                first_tok, first_mask = t, c[3]
            if c[2]:
                any_cjk = True
        if any_cjk:
            cjk = [_is_cjk_token(t) for t in toks]
            for i in range(len(hashes) - 2):
                if cjk[i] and cjk[i + 1] and cjk[i + 2]:
                    acc += w[_mix(_mix(hashes[i], hashes[i + 1]), hashes[i + 2] ^ 0x5BD1E995) & hmask]
            for mt in _CJK_CUE_RE.finditer(low):
                m = _CJK_CUES.get(mt.group(), 0)
                allm |= m
                for b in mask_indices(m):
                    cnt[b] += 1
        if context is None:
            context = self.context_weight(doc_counts)
        z = self.bias + context + acc / math.sqrt(len(toks) + 1)
        wd = self.wd
        for j, val in dense_features(raw, low, first_tok, first_mask, allm, cnt, doc_counts,
                                     _rule_hits(findings, s, e) if findings else {}, _local_ctx(doc_counts, s, e)):
            z += wd[j] * val
        return z

    def context_weight(self, doc_counts: dict[str, Any]) -> float:
        """The document context words' contribution to each of its passages' logits."""
        w = self.w
        return CONTEXT_VALUE * sum(w[i] for i in context_ids(doc_counts))

    def doc_logit(self, text: str, findings: Sequence[Finding], rule: float) -> float:
        """The calibrated document logit (0 at the dev-chosen threshold)."""
        return self._doc_parts(text, findings, rule)[0]

    def _doc_parts(self, text: str, findings: Sequence[Finding],
                   rule: float) -> tuple[float, tuple[float, int, int] | None, dict[str, Any]]:
        """:meth:`doc_logit`, the best passage ``(logit, start, end)`` (None without one) and the
        document's counts (context words, kinds)."""
        if len(findings) > INDEX_FINDINGS:
            findings = IndexedFindings(findings)
        runs = WordRuns(text.lower())
        spans, counts = candidate_passages(text, findings, self.opener, self.morphology, self.verbs,
                                           self.outputs, self.operate, runs)
        if self.needs_english or self.needs_other:
            counts.update(language_counts(text, self.needs_english, self.needs_other, runs))  # type: ignore[arg-type]
        logits = []
        best: tuple[float, int, int] | None = None
        context = self.context_weight(counts) if spans else 0.0
        for s, e in spans:
            z = self.passage_logit(text, s, e, findings, counts, context)
            if z is not None:
                logits.append(z)
                if best is None or z > best[0]:
                    best = (z, s, e)
        bow = 0.0
        if self.has_bow:
            bow = self.bow_logit(text if self.bow_scope == "document" else bow_text(text, spans))
        f = doc_features(logits, rule, findings, counts, self.doc_names, bow, self.bow_floor)
        return self.doc_b + sum(x * w for x, w in zip(f, self.doc_w)), best, counts

    def bow_logit(self, text: str) -> float:
        """The bag-of-words logit of the whole document: the same distinct normalised tokens as
        :func:`doc_bow_tokens` (a test checks it), each raw token's normalised form and weight
        looked up once per process, summed exactly (``math.fsum``: the order does not matter)."""
        cache = self._bow
        seen: dict[str, float] = {}
        for t in set(_bow_raw_tokens(text, self.bow_mask)):
            c = cache.get(t)
            if c is None:
                c = self._bow_entry(t)
            seen[c[0]] = c[1]
        return self.bow_bias + math.fsum(seen.values()) / math.sqrt(len(seen) + 1)

    def _bow_entry(self, tok: str) -> tuple[str, float]:
        """``(normalised token, its bag-of-words weight)`` of a raw token, cached."""
        n = norm_token(tok)
        w = self.w
        entry = (n, math.fsum(w[HASH_SIZE + i] for i in bow_token_ids(n, self.bow_subwords)))
        self._remember(self._bow, tok, entry)
        return entry

    def score(self, text: str, findings: Sequence[Finding], rule: float | None = None) -> float:
        """The document score in [0, 1]; 0.5 is the threshold chosen on the dev split.

        Window floor (round 159, W159): when the best passage's logit is positive, the document has no
        discussion words (test-spec words switch the floor off only from :data:`WINDOW_META_OFF` of
        them; never since round 199) and is longer than the passage plus :data:`WINDOW_PAD` characters
        on each side, that window is scored as a document of its own (the findings inside it, shifted;
        no second rule scan) and the larger score stands once the window's reaches 0.5: the bag of
        words and context words of a long ordinary document no longer outvote one strong passage.
        """
        short = not findings and len(text) <= SHORT_TEXT
        if short:
            hit = self._short.get(text)
            if hit is not None:
                return hit
        s, best, counts = self._document_score(text, findings, rule)
        if (best is not None and best[0] > 0.0 and not counts.get("discuss")
                and (WINDOW_META_OFF is None or counts.get("meta", 0) < WINDOW_META_OFF)
                and len(text) > best[2] - best[1] + 2 * WINDOW_PAD):
            # The best passage scored in a window of its own (round 159, W159): the document around
            # it (its bag of words, its context words) no longer outvotes it.
            a, b = max(0, best[1] - WINDOW_PAD), min(len(text), best[2] + WINDOW_PAD)
            inside = [replace(f, start=f.start - a, end=f.end - a) for f in findings
                      if f.start >= a and f.end <= b]
            w = self._document_score(text[a:b], inside, None)[0]
            if w >= 0.5:
                s = max(s, w)
        if short:
            if len(self._short) >= SHORT_CACHE_LIMIT:
                self._short.clear()
            self._short[text] = s
        return s

    def _document_score(self, text: str, findings: Sequence[Finding],
                        rule: float | None) -> tuple[float, tuple[float, int, int] | None, dict[str, Any]]:
        """The document's score before the window floor, its best passage and its counts."""
        if rule is None:
            rule = _rule_score()(text, (), findings) if findings else 0.0
        z, best, counts = self._doc_parts(text, findings, rule)
        s = _sigmoid(z)
        floor = self.rule_floor
        if floor is not None and rule >= floor:
            # strong rule evidence flags on its own (the floor was chosen on the dev split)
            s = max(s, min(1.0, rule - floor + 0.5))
        return s, best, counts


def _rule_score() -> Any:
    from toolbound._detect.score import rule_score

    return rule_score


_MODEL: Model | None = None
_MODEL_LOCK = threading.Lock()


def weights_present(directory: str | Path | None = None) -> bool:
    """Whether the shipped weights exist (if not, rules alone decide)."""
    d = Path(directory) if directory is not None else MODEL_DIR
    return (d / WEIGHTS_FILE).is_file() and (d / META_FILE).is_file()


def get_model() -> Model:
    """The process-wide model, loaded on first use (thread-safe)."""
    global _MODEL
    if _MODEL is None:
        with _MODEL_LOCK:
            if _MODEL is None:
                _MODEL = Model.load()
    return _MODEL


def model_scorer(text: str, passages: Sequence[tuple[int, int]], findings: Sequence[Finding]) -> float:
    """:data:`toolbound._detect.score.Scorer` for the shipped model (picks its own passages); a text in
    one of its expert's languages is scored by the expert."""
    return get_model().for_text(text).score(text, findings)
