#!/usr/bin/env python3
"""Checks a retrieval evaluation set against the vault it is meant for.

Usage: scripts/eval_check.py VAULT_DIR QUESTIONS_JSON

QUESTIONS_JSON is a JSON array of objects
    {"question": str, "answers": [str, ...], "paraphrased": bool}
where each answer is a note path relative to VAULT_DIR (e.g. "compiler.md").
Exit status 0 if every check passes, 1 (one message per violation) otherwise.

Checks
  * the file is an array of objects of that shape, each with a non-empty
    question and a non-empty list of distinct answers, and no question text
    appears twice;
  * there are at least 60 questions;
  * between 45% and 55% (inclusive) of them have "paraphrased": true;
  * every answer path names an existing file inside VAULT_DIR (exact
    spelling, no escaping the vault with ".." or an absolute path);
  * no two questions have the same set of answers;
  * for every paraphrased question, no content word of the question matches
    any content word of any of its answer notes (the whole file: title, body,
    link targets, everything).

Definitions
  words:   the text is lowercased, accents are folded (Unicode NFKD, then
           combining marks dropped), and the words are the maximal runs of
           ASCII letters a-z; anything else separates words, so
           "client-server" gives "client" and "server", "x86" gives "x",
           "don't" gives "don" and "t".
  content word: a word of at least 3 letters that is not in STOPWORDS, a list
           of English function words only (articles, determiners and
           quantifiers, pronouns, prepositions, conjunctions, auxiliary and
           modal verbs in all their forms and contracted stems, question
           words, "not", "very" and a few such adverbs). It holds no content
           words: "thing", "use", "computer", "called" are content words.
           Both sides are reduced to content words: a note's words of one or
           two letters and its function words are ignored, since "a", "in" or
           "and" would otherwise be a prefix of most words of any question.
  match:   two words match if they are equal, or one is a prefix of the
           other, or both have at least 5 letters and their first 5 letters
           are equal. This is deliberately conservative: "compile",
           "compiler" and "compilation" all match, as do "network" and
           "networking", "net" and "network", "sort" and "sorting".
"""

import json
import os
import re
import sys
import unicodedata

STOPWORDS = frozenset("""
a an the
this that these those
i me my mine myself we us our ours ourselves you your yours yourself
yourselves he him his himself she her hers herself it its itself they them
their theirs themselves one ones oneself
someone somebody something anyone anybody anything everyone everybody
everything nobody nothing none noone
who whom whose which what whatever whichever whoever whomever when whenever
where wherever why how however whether
am is are was were be been being
have has had having do does did doing done
can could may might must shall should will would ought
isn aren wasn weren hasn haven hadn doesn don didn couldn shouldn wouldn
mustn mightn needn shan cannot
of in on at by for with from to into onto about above below over under
between among amongst through throughout during before after against
without within upon across along around behind beyond beside besides
toward towards via per than like unlike near off out up down till
and or but nor so yet if then because while whilst although though unless
until since as else
not no yes very too also just only even still ever never quite rather
some any all each every both either neither such own same other another
more most less least few many much several
there here thus hence therefore
""".split())

WORD = re.compile(r"[a-z]+")


def words(text):
    """The words of a text, as defined in the module docstring."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return WORD.findall(text)


def content_words(text):
    return {w for w in words(text) if len(w) >= 3 and w not in STOPWORDS}


def match(a, b):
    if a.startswith(b) or b.startswith(a):
        return True
    return len(a) >= 5 and len(b) >= 5 and a[:5] == b[:5]


def matches(qwords, nwords):
    """Pairs (question word, note word) that match."""
    found = []
    for q in sorted(qwords):
        hits = sorted(n for n in nwords if match(q, n))
        if hits:
            found.append((q, hits))
    return found


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    vault, path = sys.argv[1], sys.argv[2]
    if not os.path.isdir(vault):
        sys.exit(f"{vault}: not a folder")
    errors = []
    try:
        with open(path, encoding="utf-8") as f:
            items = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: cannot read JSON: {e}")
    if not isinstance(items, list):
        sys.exit(f"{path}: top level must be a JSON array")

    root = os.path.realpath(vault)
    seen_questions = {}
    seen_answers = {}
    cache = {}
    good = []
    for i, item in enumerate(items):
        where = f"#{i}"
        if not isinstance(item, dict):
            errors.append(f"{where}: not an object")
            continue
        q, answers, para = item.get("question"), item.get("answers"), item.get("paraphrased")
        extra = set(item) - {"question", "answers", "paraphrased"}
        if extra:
            errors.append(f"{where}: unexpected keys {sorted(extra)}")
        if not isinstance(q, str) or not q.strip():
            errors.append(f"{where}: question must be a non-empty string")
            continue
        where = f"#{i} {q!r}"
        if not isinstance(para, bool):
            errors.append(f"{where}: paraphrased must be true or false")
        if (not isinstance(answers, list) or not answers
                or not all(isinstance(a, str) and a for a in answers)):
            errors.append(f"{where}: answers must be a non-empty list of paths")
            continue
        if len(set(answers)) != len(answers):
            errors.append(f"{where}: an answer is listed twice")
        key = q.strip().lower()
        if key in seen_questions:
            errors.append(f"{where}: same question as #{seen_questions[key]}")
        seen_questions.setdefault(key, i)
        akey = tuple(sorted(set(answers)))
        if akey in seen_answers:
            errors.append(f"{where}: same answers as #{seen_answers[akey]}")
        seen_answers.setdefault(akey, i)
        ok = True
        for a in answers:
            full = os.path.realpath(os.path.join(root, a))
            if os.path.isabs(a) or not full.startswith(root + os.sep):
                errors.append(f"{where}: answer {a!r} is not a path inside the vault")
                ok = False
            elif not os.path.isfile(full):
                errors.append(f"{where}: answer {a!r} does not exist in {vault}")
                ok = False
        if ok:
            good.append((where, q, answers, para))

    n = len(items)
    para_count = sum(1 for it in items if isinstance(it, dict) and it.get("paraphrased") is True)
    if n < 60:
        errors.append(f"only {n} questions; at least 60 are needed")
    if n and not 0.45 <= para_count / n <= 0.55:
        errors.append(f"{para_count} of {n} questions ({para_count / n:.0%}) are paraphrased;"
                      " it must be 45%-55%")

    for where, q, answers, para in good:
        if para is not True:
            continue
        qwords = content_words(q)
        if not qwords:
            errors.append(f"{where}: paraphrased question has no content word")
        for a in answers:
            if a not in cache:
                with open(os.path.join(root, a), encoding="utf-8", errors="replace") as f:
                    cache[a] = content_words(f.read())
            for qw, hits in matches(qwords, cache[a]):
                shown = ", ".join(hits[:6]) + (", ..." if len(hits) > 6 else "")
                errors.append(f"{where}: paraphrased, but {qw!r} matches {a}: {shown}")

    for e in errors:
        print(e)
    status = "OK" if not errors else f"{len(errors)} violation(s)"
    print(f"{n} questions, {para_count} paraphrased, {n - para_count} not: {status}")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
