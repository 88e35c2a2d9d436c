"""Small text toolkit for the simulated models: tokens, light stemming, concepts and cue phrases.

Everything here is plain rules over words. Concepts group words (and a few CJK phrases) that mean
the same action or thing, so that "track my parcel" meets a tool described as "Find one order".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

WORD_RE = re.compile(r"[a-z][a-z0-9']*")
CJK_RE = re.compile(r"[\u3400-\u9fff]")

_STOP_TEXT = """
a an the and or but if of to in on at by for from with without into onto about as is are was were be been
being am do does did done have has had i me my mine you your yours we us our it its this that these those
there here what which who whom whose when where why how can could would should will shall may might must
please pls kindly just also too very so than then not no yes one some any each per via tool tools function
functions use used using value values string number given e g eg etc like want need needs let get got make
made tell know thank thanks hi hello hey only exact
"""
STOPWORDS = frozenset(_STOP_TEXT.split())

_CONCEPT_TEXT: dict[str, str] = {
    "find": "find look lookup locate where track trace status view fetch retrieve query detail "
    "查 查询 查看 在哪",
    "search": "search list browse filter recent latest history 搜索 最近",
    "order": "order purchase package parcel 订单",
    "ship": "ship shipping shipment deliver delivery courier postage send 发货 运费",
    "quote": "quote price cost estimate rate fee much 报价 多少钱",
    "refund": "refund reimburse reimbursement chargeback repay 退款 退钱 钱退",
    "cancel": "cancel abort void 取消",
    "delete": "delete remove erase wipe purge destroy 删除",
    "create": "create add new open register 创建",
    "update": "update change modify edit amend 修改",
    "email": "email mail",
    "id": "id identifier code reference ref",
    "customer": "customer user account client 账户",
    "weather": "weather forecast temperature",
}
CONCEPTS: dict[str, tuple[str, ...]] = {k: tuple(v.split()) for k, v in _CONCEPT_TEXT.items()}
"""Concept id -> words and phrases that express it."""

WRITE_CONCEPTS = frozenset({"refund", "cancel", "delete", "create", "update"})
_WRITE_TEXT = (
    "send charge pay transfer book reset submit place write set approve issue post insert deactivate"
)
_WRITE_TEXT += " close suspend"
WRITE_WORDS = frozenset(_WRITE_TEXT.split())
DESTRUCTIVE_CONCEPTS = frozenset({"refund", "cancel", "delete"})
ACTION_VERBS: dict[str, str] = {
    **dict.fromkeys(("refund", "reimburse", "repay", "chargeback"), "refund"),
    **dict.fromkeys(("cancel", "abort", "void"), "cancel"),
    **dict.fromkeys(("delete", "remove", "erase", "wipe", "purge", "destroy"), "delete"),
    **dict.fromkeys(("create", "register"), "create"),
    **dict.fromkeys(("update", "change", "modify", "edit", "amend"), "update"),
}

_WORD_CONCEPT: dict[str, str] = {}
_CJK_CONCEPT: list[tuple[str, str]] = []
for _concept, _words in CONCEPTS.items():
    for _word in _words:
        if CJK_RE.search(_word):
            _CJK_CONCEPT.append((_word, _concept))
        else:
            _WORD_CONCEPT.setdefault(_word, _concept)
_CJK_WRITES = [(word, concept) for word, concept in _CJK_CONCEPT if concept in WRITE_CONCEPTS]
PHRASE_CONCEPTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bmoney back\b|\bgive (?:me )?(?:my|the) money\b|\breturn (?:my|the) money\b"), "refund"),
    (re.compile(r"\bhow much\b"), "quote"),
    (re.compile(r"\blook(?:ing)? up\b|\bcheck on\b|\bwhat happened to\b"), "find"),
    (re.compile(r"\bcall off\b"), "cancel"),
    (re.compile(r"\bget rid of\b"), "delete"),
)

GREETING_RE = re.compile(
    r"^\s*(?:hi|hello|hey|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening|day)|thanks|thank you|"
    r"cheers|bye|goodbye|你好|您好|谢谢|bonjour|hola|hallo|ciao|salut|merci|gracias|danke)\b",
)
SMALLTALK_RE = re.compile(
    r"\bwhat (?:can|do) you (?:help|do)\b|\bwho are you\b|\bhow are you\b|\bwhat are you\b|"
    r"\bhow(?:'s| is) it going\b|\bnice to meet\b|\bhave a (?:nice|good|great)\b|"
    r"\bwhat (?:are|is) your (?:capabilities|name)\b|\bhow can you help\b|你能做什么|你是谁"
)
POLICY_RE = re.compile(
    r"\bpolic(?:y|ies)\b|\bterms\b|\bwarrant(?:y|ies)\b|\bguarantee\b|\bexplain\b|"
    r"\bhow (?:long|soon) (?:does|do|will|would|can)\b|\bhow do (?:refunds|returns|cancellations)\b|"
    r"\bhow does (?:\w+ ){0,3}work\b|\bwhat(?:'s| is) the difference\b|\bwhy do you\b|"
    r"\bdo you (?:offer|ship|accept|allow|support|deliver|charge|provide|have)\b|"
    r"\b(?:is|are) there (?:any )?(?:fees?|charges?|limits?)\b|\bam i (?:allowed|eligible)\b|"
    r"\bcan i (?:return|cancel|get a refund)\b|政策|规定"
)
INJECTION_RE = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b.{0,40}\b(?:instructions?|rules?|prompts?|guidelines?|"
    r"policies|restrictions?|system)\b|\byou are now\b|\b(?:developer|admin|god|debug) mode\b|"
    r"\bnew instructions?\b|\bsystem (?:override|prompt|message)\s*:|\bjailbreak\b|\bact as (?:an? )?admin\b|"
    r"\bpretend (?:to be|you are)\b|忽略.{0,10}(?:指令|规则|说明)",
    re.IGNORECASE,
)
SQL_RE = re.compile(
    r";?\s*\b(?:drop\s+table|truncate\s+table|delete\s+from|insert\s+into|update\s+\w+\s+set|"
    r"union\s+select|select\s+\*\s+from)\b[^.?!\n]*(?:--)?|'\s*or\s+'?1'?\s*=\s*'?1'?(?:\s*--)?",
    re.IGNORECASE,
)
BULK_RE = re.compile(
    r"\b(?:every|all|entire|everything|each|any and all)\b(?:\s+\w+){0,3}\s*"
    r"(?:orders?|accounts?|items?|records?|refunds?|customers?|purchases?|of them|my)\b|所有|全部|每个",
    re.IGNORECASE,
)
NO_TOOLS_RE = re.compile(
    r"\b(?:do not|don't|dont|never|without)\s+(?:call(?:ing)?|us(?:e|ing)|invok(?:e|ing)|run(?:ning)?)\s+"
    r"(?:any\s+)?(?:tools?|functions?|apis?)\b|\bno tools?\b|"
    r"\bjust (?:answer|tell me) (?:in text|from memory)\b",
    re.IGNORECASE,
)
CORRECTION_RE = re.compile(
    r"\b(?:actually|sorry|correction|i mean|i meant|instead|rather|make (?:it|that)|change (?:it|that) to|"
    r"wait|scratch that|not \w+ but)\b|不对|改成",
    re.IGNORECASE,
)
ACTION_RE = re.compile(
    r"\?|\b(?:find|show|get|give|look|check|track|quote|search|list|cancel|refund|delete|remove|send|"
    r"create|update|change|where|what|how|which|when|can you|could you|please|i want|i need|i'd like|"
    r"i would like|tell me|estimate|calculate|book|fetch|lookup)\b|查|帮|请|取消|退|？|多少|哪|吗",
    re.IGNORECASE,
)
RETRACT_RE = re.compile(
    r"\b(?:never ?mind|forget (?:it|that|about it)|scratch that|don'?t do (?:it|that)|(?:actually|no)[,.]? "
    r"(?:no[,.]? )?(?:don'?t|do not)(?: do (?:it|that))?(?=[\s.,!]|$))|算了|不用了",
    re.IGNORECASE,
)
CAMEL_RE, SEPARATOR_RE = re.compile(r"([a-z0-9])([A-Z])"), re.compile(r"[_\-.]+")
SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
CLAUSE_SPLIT_RE = re.compile(r"\s*(?:;|,?\s+\band\b\s+(?:also\s+)?|,?\s+\balso\b\s+|，|；)\s*", re.IGNORECASE)


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """Reduce an English word to a crude stem (enough to match 'shipped' with 'shipping')."""
    w = word.lower().strip("'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) > 4 and w.endswith("ed"):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


_STEM_CONCEPT: dict[str, str] = {stem(word): concept for word, concept in _WORD_CONCEPT.items()}
_STOP_STEMS = frozenset(stem(w) for w in STOPWORDS)


def words(text: str) -> list[str]:
    """Lowercase latin words of ``text``, in order."""
    return WORD_RE.findall(text.lower())


@lru_cache(maxsize=8192)
def split_identifier(name: str) -> str:
    """Turn ``get_shipping_quote`` or ``getShippingQuote`` into ``get shipping quote``."""
    return SEPARATOR_RE.sub(" ", CAMEL_RE.sub(r"\1 \2", name)).lower()


@lru_cache(maxsize=2048)
def concepts(text: str) -> frozenset[str]:
    """Concepts mentioned by ``text``: known concept ids plus ``w:<stem>`` for other content words."""
    lowered = text.lower()
    found: set[str] = set()
    for word in WORD_RE.findall(split_identifier(text)):
        s = stem(word)
        if word in _WORD_CONCEPT:
            found.add(_WORD_CONCEPT[word])
        elif word not in STOPWORDS and s not in _STOP_STEMS and len(s) >= 2:
            found.add(_STEM_CONCEPT.get(s) or f"w:{s}")
    for phrase, concept in _CJK_CONCEPT:
        if phrase in text:
            found.add(concept)
    for pattern, concept in PHRASE_CONCEPTS:
        if pattern.search(lowered):
            found.add(concept)
    return frozenset(found)


@lru_cache(maxsize=2048)
def action_words(text: str) -> frozenset[str]:
    """Write actions ``text`` asks for with an active verb ("cancel", not "cancelled"), as concept ids."""
    found: set[str] = set()
    lowered = text.lower()
    for word in WORD_RE.findall(split_identifier(text)):
        if word in ACTION_VERBS:
            found.add(ACTION_VERBS[word])
        elif word in WRITE_WORDS:
            found.add(_WORD_CONCEPT.get(word) or f"w:{stem(word)}")
    for phrase, concept in _CJK_WRITES:  # 已取消 or 被删除 is a state, not a request
        if phrase in text and re.search(rf"(?<!已)(?<!已经)(?<!被){re.escape(phrase)}", text):
            found.add(concept)
    for pattern, concept in PHRASE_CONCEPTS:
        if concept in WRITE_CONCEPTS and pattern.search(lowered):
            found.add(concept)
    return frozenset(found)


@lru_cache(maxsize=2048)
def sentences(text: str) -> tuple[str, ...]:
    """Split ``text`` into sentences (keeps the final punctuation)."""
    return tuple(s.strip() for s in SENTENCE_SPLIT_RE.split(text) if s.strip())


def clauses(text: str) -> list[str]:
    """Split ``text`` into sentences, then into clauses joined by 'and', ';' or 'also'."""
    out: list[str] = []
    for sentence in sentences(text):
        out.extend(c for c in CLAUSE_SPLIT_RE.split(sentence) if c.strip())
    return out


def drop_retracted(text: str) -> str:
    """The text after the last sentence that takes back what came before ("Actually no, don't.")."""
    parts = sentences(text)
    last = max((i for i, s in enumerate(parts) if RETRACT_RE.search(s)), default=-1)
    if last < 0:
        return text
    tail = RETRACT_RE.split(parts[last])[-1].strip(" ,.;")
    return " ".join([*([tail] if tail else []), *parts[last + 1 :]])


def is_injection(text: str) -> bool:
    """True when ``text`` carries an instruction aimed at the model rather than data."""
    return bool(INJECTION_RE.search(text))


def strip_injections(text: str) -> tuple[str, bool]:
    """Remove injected-instruction sentences and SQL fragments; say whether anything was removed."""
    kept: list[str] = []
    removed = False
    for sentence in sentences(text):
        if is_injection(sentence):
            removed = True
            continue
        cleaned = SQL_RE.sub(" ", sentence)
        removed = removed or cleaned != sentence
        if cleaned.strip(" ;-"):
            kept.append(cleaned.strip())
    return " ".join(kept), removed


def is_smalltalk(sentence: str) -> bool:
    """True when a sentence is a greeting, thanks or a question about the assistant itself."""
    lowered = sentence.lower().strip()
    return bool(GREETING_RE.search(lowered) or SMALLTALK_RE.search(lowered))


def is_policy_question(text: str) -> bool:
    """True when ``text`` asks how something works rather than asking for something to be done."""
    return bool(POLICY_RE.search(text.lower()))


def has_action(text: str) -> bool:
    """True when a clause asks for something (a question or an imperative), not just states a fact."""
    return bool(ACTION_RE.search(text))


@lru_cache(maxsize=2048)
def has_correction(text: str) -> bool:
    """True when the user corrects themselves ("actually", "I mean", "make it")."""
    return bool(CORRECTION_RE.search(text))


def label(name: str) -> str:
    """Human words for a parameter name: ``postal_code`` -> ``postal code``, ``order_id`` -> ``order ID``."""
    parts = split_identifier(name).split()
    return " ".join("ID" if p == "id" else p for p in parts) or name


def join_words(items: Iterable[str]) -> str:
    """Join words as English prose: 'a', 'a and b', 'a, b and c'."""
    listed = list(items)
    if len(listed) <= 1:
        return "".join(listed)
    return ", ".join(listed[:-1]) + " and " + listed[-1]
