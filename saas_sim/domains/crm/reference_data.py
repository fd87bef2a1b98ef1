"""Fixed reference data of generated worlds: territories, titles, products, sequences, phone formats.

Everything here is a constant in a documented order, so generation never
depends on iteration order of a set or dict built at run time.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Final

from saas_sim.domains.crm.models import Currency, SequencePurpose

__all__ = [
    "INDUSTRIES",
    "PHONE_FORMATS",
    "PRODUCTS",
    "SEQUENCES",
    "TERRITORIES",
    "TITLES",
    "ProductSpec",
    "Territory",
    "format_phone",
]


@dataclass(frozen=True)
class Territory:
    """A sales territory: its Faker locale, country, calling code, currency, email TLD and weight."""

    name: str
    locale: str
    country: str
    calling_code: str
    currency: Currency
    tld: str
    weight: float


TERRITORIES: Final[tuple[Territory, ...]] = (
    Territory("NA-East", "en_US", "US", "1", "USD", "com", 0.20),
    Territory("NA-West", "en_US", "US", "1", "USD", "com", 0.15),
    Territory("UK&I", "en_GB", "GB", "44", "GBP", "co.uk", 0.15),
    Territory("DACH", "de_DE", "DE", "49", "EUR", "de", 0.18),
    Territory("France", "fr_FR", "FR", "33", "EUR", "fr", 0.12),
    Territory("Iberia", "es_ES", "ES", "34", "EUR", "es", 0.10),
    Territory("Nordics", "sv_SE", "SE", "46", "EUR", "se", 0.10),
)

INDUSTRIES: Final[tuple[str, ...]] = (
    "Software", "Manufacturing", "Healthcare", "Financial Services", "Retail", "Logistics",
    "Education", "Energy", "Media", "Professional Services", "Telecommunications", "Construction",
)

TITLES: Final[tuple[str, ...]] = (
    "VP of Sales", "Head of Operations", "CFO", "IT Director", "Procurement Manager",
    "Chief Technology Officer", "Marketing Manager", "Head of Customer Success", "Operations Analyst",
    "Engineering Manager", "Director of Finance", "RevOps Lead", "Office Manager", "COO",
    "Head of Data", "Sales Operations Manager", "Product Manager", "Security Lead",
)


@dataclass(frozen=True)
class ProductSpec:
    """A catalogue product and its USD list price (EUR and GBP are derived)."""

    sku: str
    name: str
    family: str
    usd: Decimal


PRODUCTS: Final[tuple[ProductSpec, ...]] = (
    ProductSpec("PLT-SEAT", "Core Platform - Seat (annual)", "Platform", Decimal("1200")),
    ProductSpec("PLT-ENT", "Core Platform - Enterprise Edition", "Platform", Decimal("48000")),
    ProductSpec("ANL-ADD", "Analytics Add-on", "Add-ons", Decimal("350")),
    ProductSpec("API-TIER", "API Access Tier", "Add-ons", Decimal("5000")),
    ProductSpec("CON-DATA", "Data Connector", "Add-ons", Decimal("2400")),
    ProductSpec("SSO-ENT", "Enterprise SSO", "Security", Decimal("6000")),
    ProductSpec("STO-1TB", "Storage 1 TB", "Infrastructure", Decimal("900")),
    ProductSpec("SBX-ENV", "Sandbox Environment", "Infrastructure", Decimal("3000")),
    ProductSpec("SUP-PREM", "Premium Support", "Services", Decimal("9000")),
    ProductSpec("ONB-PKG", "Onboarding Package", "Services", Decimal("7500")),
    ProductSpec("TRN-DAY", "Training Day", "Services", Decimal("1800")),
    ProductSpec("MIG-SVC", "Migration Service", "Services", Decimal("12000")),
)

FX: Final[dict[Currency, Decimal]] = {"USD": Decimal("1"), "EUR": Decimal("0.92"), "GBP": Decimal("0.79")}
"""List-price conversion factors from USD (price book prices are rounded to whole units)."""

SEQUENCES: Final[tuple[tuple[str, SequencePurpose, tuple[tuple[int, str], ...]], ...]] = (
    ("Spring Product Newsletter", "nurture",
     ((0, "What's new this spring"), (14, "Customer story: scaling operations"), (28, "Webinar invite"))),
    ("Webinar Follow-up", "nurture",
     ((0, "Thanks for joining - slides inside"), (3, "Three ideas from the webinar"), (10, "Book a demo?"))),
    ("Cold Outbound - Operations Leaders", "outbound",
     ((0, "Quick question about your ops stack"), (3, "Following up"), (7, "Worth a chat?"),
      (14, "Closing the loop"))),
    ("Win-back Re-engagement", "re_engagement",
     ((0, "It's been a while"), (7, "What changed since we last spoke"))),
    ("Product Launch Announcement", "nurture",
     ((0, "Introducing Analytics 2.0"), (5, "See Analytics 2.0 in action"))),
)

PHONE_FORMATS: Final[tuple[str, ...]] = ("e164", "intl_spaced", "parens", "dotted", "dashed", "digits", "ext")
"""Phone styles a world mixes; `format_phone` renders them and the data report recognises them."""


def format_phone(style: str, calling_code: str, national: str, ext: str = "12") -> str:
    """Renders a 10-digit national number in one of `PHONE_FORMATS`.

    Args:
        style: One of `PHONE_FORMATS`.
        calling_code: The country calling code without "+".
        national: Exactly 10 digits.
        ext: The extension used by the "ext" style.
    """
    a, b, c = national[:3], national[3:6], national[6:]
    if style == "e164":
        return f"+{calling_code}{national}"
    if style == "intl_spaced":
        return f"+{calling_code} {a} {b} {c}"
    if style == "parens":
        return f"({a}) {b}-{c}"
    if style == "dotted":
        return f"{a}.{b}.{c}"
    if style == "dashed":
        return f"{a}-{b}-{c}"
    if style == "digits":
        return national
    if style == "ext":
        return f"+{calling_code} {a}-{b}-{c} ext. {ext}"
    raise ValueError(f"unknown phone style {style!r}")
