"""A refund or replacement claimed done by a pronoun or an ellipsis: "You asked for a refund. I processed one."

A claim reader that looks for the words of a refund passes over a reply that names the refund in one place and
says it was done in another: "Regarding your refund: it's done", "You asked for a refund on order 100123. It has
been processed", "Sie hatten eine Erstattung angefragt. Das habe ich veranlasst", "Usted pidió un reembolso. Ya
lo tramité", "Vous avez demandé un remboursement. C'est fait." The customer reads each as the refund made, so a
false one is a false claim. This module reads such a clause: an act reported done (not promised, not offered)
whose object is a pronoun ("it", "one", "das", "lo", "l'") or left out ("Done.", "Ist erledigt.", "Ya está.",
"C'est fait."), and what it refers to: the refund or replacement named earlier in its sentence or in the sentence
before it (a topic, the customer's wish, a question).

What is no such claim: a clause the readers already find negated, conditional or asked ("I have not processed
one yet", "if the photos show damage, I'll process one"), and one that waits for something ("it's done on our
side once you confirm", "sobald Sie bestätigen"), which `pending` reads. An act of the future or an offer ("I'll
process it", "we can do that") is not in the done forms below at all.
"""

from __future__ import annotations

import re

__all__ = ["done_by_reference", "pending", "topic_of"]

_APOS = r"['\u2019]"
# An act reported done whose object is a pronoun or left out, by language.
_DONE_FORMS = {
    "en": re.compile(
        rf"\b(?:it|that|this|everything|all of it|both)(?:{_APOS}s|\s+is|\s+was|\s+has|\s+are|\s+were|\s+have)\s+"
        r"(?:(?:now|already|all|just|been|fully|also|finally|successfully)\s+)*(?:done|processed|completed|complete|"
        r"handled|taken care of|sorted(?:\s+out)?|issued|sent|shipped|arranged|put through|approved|finished|"
        r"settled|submitted|dispatched|initiated|on (?:its|the|their) way)\b|"
        rf"\b(?:i|we)(?:{_APOS}ve|\s+have|{_APOS}d|\s+had)?\s+(?:(?:now|already|just|also|since|gone ahead and|"
        r"went ahead and)\s+)*(?:processed|issued|done|completed|handled|approved|put through|initiated|"
        r"submitted|taken care of|sorted(?:\s+out)?|dealt with|triggered|arranged)\s+"
        r"(?:it|one|that|this|that one|this one)\b(?!\s+(?:for|to)\s+(?:you|the|your)\s+"
        r"(?:team|colleague|department|manager))|"
        rf"\b(?:i|we)(?:{_APOS}ve|\s+have)?\s+(?:(?:now|already|just|also)\s+)*(?:made|created|booked)\s+one\b|"
        rf"\b(?:i|we)(?:{_APOS}ve|\s+have)?\s+(?:(?:now|already|just|also)\s+)*(?:sent|shipped|dispatched|"
        r"ordered)\s+(?:you\s+)?(?:one|a new one|another one|another|a fresh one)\b|"
        r"^\W*(?:(?:yes|yep|ok|okay|good news|great news|all|now|already|just|and)\W+)*(?:done|all done|sorted|"
        r"all sorted|taken care of|processed|handled|completed|finished|approved|done and dusted)\b(?!\s+\w)"),
    "de": re.compile(
        r"\b(?:es|das|dies|sie|er|alles)\s+(?:ist|wurde|wurden|sind|habe ich|haben wir|hab ich)\s+"
        r"(?:\w+\s+){0,3}?(?:erledigt|veranlasst|bearbeitet|durchgeführt|ausgeführt|abgeschlossen|angewiesen|"
        r"ausgelöst|gemacht|verschickt|versandt|genehmigt|angestoßen|unterwegs)\b|"
        r"\b(?:ich|wir)\s+(?:habe|haben|hab)\s+(?:\w+\s+){0,2}?(?:es|das|dies|sie|ihn|eine[nr]?|einen)\s+"
        r"(?:\w+\s+){0,3}?(?:erledigt|veranlasst|durchgeführt|ausgeführt|angewiesen|ausgelöst|gemacht|"
        r"verschickt|versandt|genehmigt|angestoßen)\b|"
        r"\b(?:ist|wurde)\s+(?:(?:schon|bereits|jetzt|nun|soeben|gerade|heute)\s+)*(?:erledigt|veranlasst|"
        r"durchgeführt|angewiesen|ausgelöst)\b|"
        r"^\W*(?:(?:ja|gut|alles|schon|bereits|nun|jetzt|und)\W+)*(?:erledigt|veranlasst|gemacht|alles erledigt)\b"
        r"(?!\s+\w)"),
    "es": re.compile(
        r"\b(?:ya\s+)?(?:está|esta|quedó|queda|quedo)\s+(?:(?:ya|todo)\s+)?(?:hecho|hecha|listo|lista|"
        r"procesad[oa]|tramitad[oa]|gestionad[oa]|completad[oa]|enviad[oa]|en camino)\b|"
        r"\b(?:lo|la|los|las|uno|una)\s+(?:he|hemos|ha|han)\s+(?:(?:ya|hoy)\s+)?(?:hecho|procesado|tramitado|"
        r"gestionado|enviado|realizado|emitido|completado|aprobado)\b|"
        r"\b(?:lo|la)\s+(?:hice|hicimos|procesé|procesamos|tramité|tramitamos|gestioné|gestionamos|envié|enviamos|"
        r"realicé|realizamos|emití|emitimos|completé|aprobé|aprobamos)\b|"
        r"\bse\s+(?:hizo|procesó|tramitó|gestionó|envió|realizó|emitió|completó|aprobó)\b|"
        r"^\W*(?:(?:sí|bien|perfecto|y)\W+)*(?:ya está|hecho|listo)\b(?!\s+\w)"),
    "fr": re.compile(
        rf"\b(?:c{_APOS}est|cela est|ça a été|cela a été)\s+(?:(?:déjà|maintenant|bien|désormais|donc|tout)\s+)*"
        r"(?:fait|faite|chose faite|réglé|traité|effectué|envoyé|terminé|en route)\b|"
        rf"\b(?:je|nous)\s+(?:l{_APOS}\s*|les\s+)(?:ai|avons)\s+(?:(?:déjà|bien|maintenant|aujourd{_APOS}hui)\s+)*"
        r"(?:fait|traité|effectué|envoyé|émis|lancé|réglé|validé|expédié|initié|déclenché|approuvé)e?s?\b|"
        rf"\b(?:j{_APOS}\s*|nous\s+)en\s+(?:ai|avons)\s+(?:(?:déjà|bien)\s+)*(?:fait|traité|effectué|envoyé|"
        r"émis|lancé|expédié|initié|déclenché)\w*\s+une?\b|"
        r"\b(?:il|elle)\s+(?:a|ont)\s+été\s+(?:(?:déjà|bien)\s+)?(?:effectué|traité|envoyé|émis|expédié|validé|"
        r"approuvé|lancé)e?s?\b|"
        rf"^\W*(?:(?:oui|voilà|bon|bien|et)\W+)*(?:c{_APOS}est\s+)?(?:fait|réglé|chose faite)\b(?!\s+\w)"),
}
# A clause that waits for something: "it's done on our side once you confirm", "sobald Sie bestätigen".
_PENDING = re.compile(r"\b(?:once|until|till|when|whenever|as soon as|after|before|sobald|bis|wenn|nachdem|cuando|"
                      r"una vez|hasta|en cuanto|después de|dès que|quand|lorsque|une fois|jusqu|après)\b")
# What a done act may refer back to: the refund (money back) or the replacement, by its words.
_REFUND_TOPIC = re.compile(r"\b(?:refund\w*|reimburs\w*|money back|(?:rück)?erstatt\w*|geld zurück|rückzahlung\w*|"
                           r"reembols\w*|devoluci[oó]n del dinero|rembours\w*)")
_REPLACE_TOPIC = re.compile(r"\b(?:replac\w*|(?:a |one )?new one|resend\w*|reship\w*|ersatz\w*|neue[nrs]? "
                            r"(?:exemplar|gerät|artikel)|nachliefer\w*|reemplaz\w*|reposici[oó]n|sustituci[oó]n|"
                            r"remplac\w*|renvo\w*)")


def done_by_reference(text: str, lang: str | None) -> bool:
    """Whether a clause (lowercased) reports an act done whose object is a pronoun or left out."""
    forms = [_DONE_FORMS[lang]] if lang in _DONE_FORMS else list(_DONE_FORMS.values())
    return any(p.search(text) for p in forms)


def pending(text: str) -> bool:
    """Whether a clause waits for something ("... once you confirm"): it reports nothing done yet."""
    return bool(_PENDING.search(text))


# Other things a pronoun may stand for, named after the refund: "You asked for a refund, but the parcel is still on
# its way. It was sent on Monday." speaks of the parcel. (The order is no rival: "a refund on order 100123 ... I
# processed one" is the refund, and a request is the refund asked for.)
_RIVAL = re.compile(r"\b(?:parcels?|packages?|shipments?|deliver(?:y|ies)|items?|products?|cases?|tickets?|photos?|"
                    r"pictures?|images?|messages?|e-?mails?|notes?|information|details|questions?|tracking|"
                    r"pakete?s?|sendung(?:en)?|lieferung(?:en)?|artikel|fall|nachricht(?:en)?|fotos?|bilder?|"
                    r"paquetes?|envíos?|artículos?|productos?|caso|mensajes?|colis|envois?|articles?|produits?|"
                    r"dossier|livraisons?)\b")


def topic_of(text: str) -> str | None:
    """What a text (the sentence before a done act, then the clauses before it) names last for it to refer to:
    "refund", "replacement", or None (nothing, or another thing named after them: "... the parcel. It was sent").
    A refund named wins over a replacement: a payout claimed is judged by the refunds made."""
    ends = {kind: max((m.end() for m in pattern.finditer(text)), default=-1)
            for kind, pattern in (("refund", _REFUND_TOPIC), ("replacement", _REPLACE_TOPIC), ("rival", _RIVAL))}
    if max(ends["refund"], ends["replacement"]) < ends["rival"]:
        return None
    if ends["refund"] >= 0:
        return "refund"
    return "replacement" if ends["replacement"] >= 0 else None
