"""Fixed reference data: the product catalogue, help-centre articles, macros and agents.

The shapes are fixed here; the seeded generator picks prices, final-sale flags,
article facts and names. Articles carry *facts*: short phrases a correct answer
to a how-to question must contain, recorded as ground truth for checks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Literal

from faker import Faker

from saas_sim.core.ids import IdFactory
from saas_sim.domains.support.customer_text import ascii_slug
from saas_sim.domains.support.models import Agent, KbArticle, Macro, Product

__all__ = [
    "ACTING_AGENT_ID",
    "HOWTO_TASKS",
    "PRODUCT_SHAPES",
    "ArticleFacts",
    "make_agents",
    "make_articles",
    "make_macros",
    "make_products",
]

ACTING_AGENT_ID = "agt_000001"
"""The agent the tools act as: replies, notes and actions are authored by it."""

# (name, category, price)
PRODUCT_SHAPES: tuple[tuple[str, str, str], ...] = (
    ("AeroBrew Smart Kettle", "kettle", "79.00"),
    ("AeroBrew Mini Kettle", "kettle", "39.90"),
    ("Crema Pro Espresso Machine", "coffee", "349.00"),
    ("Crema Drip Coffee Maker", "coffee", "89.50"),
    ("Pulse Bluetooth Speaker", "speaker", "59.99"),
    ("Pulse Max Speaker", "speaker", "149.00"),
    ("Nest-Lite Thermostat", "thermostat", "129.00"),
    ("Nest-Lite Room Sensor", "thermostat", "34.50"),
    ("Dusty Robot Vacuum", "vacuum", "279.00"),
    ("Dusty Handheld Vacuum", "vacuum", "69.00"),
    ("Hush ANC Headphones", "headphones", "189.00"),
    ("Hush Earbuds", "headphones", "79.99"),
    ("Glow Desk Lamp", "lamp", "45.00"),
    ("Glow Smart Bulb 4-pack", "lamp", "49.90"),
    ("Stoneware Mug Set", "kitchen", "32.00"),
    ("Chef Knife 8in", "kitchen", "64.00"),
    ("Cast Iron Skillet", "kitchen", "42.50"),
    ("Bamboo Cutting Board", "kitchen", "24.99"),
    ("Linen Throw Blanket", "home", "58.00"),
    ("Wool Floor Cushion", "home", "46.00"),
    ("Ceramic Planter", "home", "27.50"),
    ("Scented Candle Trio", "home", "22.00"),
    ("Trail Backpack 28L", "outdoor", "89.00"),
    ("Insulated Water Bottle", "outdoor", "29.95"),
    ("Yoga Mat Pro", "outdoor", "68.00"),
    ("Merino Crew Sweater", "apparel", "98.00"),
    ("Organic Cotton Tee", "apparel", "25.00"),
    ("Rain Shell Jacket", "apparel", "139.00"),
    ("Canvas Tote Bag", "apparel", "19.50"),
    ("Leather Card Wallet", "apparel", "39.00"),
)

_DEVICE = {"kettle", "coffee", "speaker", "thermostat", "vacuum", "headphones", "lamp"}

HOWTO_TASKS: dict[str, dict[str, str]] = {
    "wifi": {
        "en": "reset the Wi-Fi connection",
        "de": "die WLAN-Verbindung zurücksetzen",
        "es": "restablecer la conexión wifi",
        "fr": "réinitialiser la connexion wifi",
    },
    "firmware": {
        "en": "update the firmware",
        "de": "die Firmware aktualisieren",
        "es": "actualizar el firmware",
        "fr": "mettre à jour le firmware",
    },
    "clean": {
        "en": "descale and clean it",
        "de": "es entkalken und reinigen",
        "es": "descalcificarlo y limpiarlo",
        "fr": "le détartrer et le nettoyer",
    },
    "pair": {
        "en": "pair it with my phone",
        "de": "es mit meinem Handy koppeln",
        "es": "emparejarlo con mi móvil",
        "fr": "l'appairer avec mon téléphone",
    },
}
"""How a customer names each how-to task, per language."""

_TOPICS_BY_CATEGORY = {
    "kettle": ("wifi", "clean"),
    "coffee": ("clean", "firmware"),
    "speaker": ("pair", "firmware"),
    "headphones": ("pair", "firmware"),
    "thermostat": ("wifi", "firmware"),
    "vacuum": ("wifi", "clean"),
    "lamp": ("wifi", "pair"),
}
_BUTTONS = ("Power", "Mode", "Home", "Reset", "Light", "Menu")
_COLOURS = ("blue", "amber", "green", "white", "purple")


@dataclass(frozen=True)
class ArticleFacts:
    """A how-to article and the facts a correct answer must contain."""

    article: KbArticle
    topic: str
    facts: tuple[str, ...]


def make_products(rng: random.Random, ids: IdFactory, final_sale_rate: float) -> list[Product]:
    """Returns the catalogue; about `final_sale_rate` of the items are final sale."""
    products: list[Product] = []
    for i, (name, category, price) in enumerate(PRODUCT_SHAPES):
        products.append(
            Product(
                id=ids.next("prd"),
                sku=f"{category[:3].upper()}-{1000 + i * 7 + rng.randrange(7)}",
                name=name,
                category=category,
                price=Decimal(price),
                returnable=rng.random() >= final_sale_rate,
            )
        )
    return products


def _howto_body(topic: str, product: str, rng: random.Random) -> tuple[str, str, tuple[str, ...]]:
    button = rng.choice(_BUTTONS)
    seconds = rng.randrange(3, 16)
    colour = rng.choice(_COLOURS)
    if topic == "wifi":
        facts = (f"{button} button", f"{seconds} seconds")
        body = (
            f"To reset the Wi-Fi connection of your {product}, press and hold the {button} button "
            f"for {seconds} seconds until the status light blinks {colour}. Then open the app, "
            "go to Devices and choose Add device to connect it again."
        )
        return f"Reset the Wi-Fi connection on the {product}", body, facts
    if topic == "firmware":
        metres = rng.randrange(2, 9)
        path = rng.choice(("Settings > Firmware", "Device > About > Update", "Menu > System > Update"))
        facts = (path, f"{metres} metres")
        body = (
            f"Firmware updates for the {product} are installed from the app: open {path} and tap "
            f"Update. Keep your phone within {metres} metres of the device until the light turns "
            f"{colour}. Do not unplug it during the update."
        )
        return f"Update the firmware of the {product}", body, facts
    if topic == "clean":
        parts = rng.randrange(2, 6)
        cycles = rng.randrange(2, 5)
        facts = (f"{parts} parts water", f"{cycles} cycles")
        body = (
            f"Descale the {product} once a month: mix 1 part white vinegar with {parts} parts water, "
            f"run {cycles} cycles, then run one cycle with clean water. Wipe the outside with a dry cloth."
        )
        return f"Descale and clean the {product}", body, facts
    facts = (f"{button} button", f"{seconds} seconds")
    body = (
        f"To pair the {product} with a phone, switch Bluetooth on, then hold the {button} button for "
        f"{seconds} seconds until you hear a tone and the light blinks {colour}. Select the "
        f"{product} in your phone's Bluetooth list."
    )
    return f"Pair the {product} with your phone", body, facts


_POLICY_ARTICLES = (
    (
        "Returns and refunds",
        "returns",
        "You can return most items within 30 days of delivery for a full refund of the item price. "
        "Final-sale items cannot be returned or refunded. Damaged, defective or wrong items are "
        "refunded or replaced at no cost.",
    ),
    (
        "Shipping times",
        "shipping",
        "Standard shipping takes 3-6 business days. You get a tracking number by e-mail once your "
        "order ships.",
    ),
    (
        "Download an invoice",
        "billing",
        "Invoices are available in your account under Account > Orders > Download invoice.",
    ),
    (
        "Change your delivery address",
        "shipping",
        "You can change the delivery address until the order ships, under Account > Orders > Edit address.",
    ),
)


def make_articles(
    rng: random.Random, ids: IdFactory, products: list[Product], epoch: datetime
) -> list[ArticleFacts]:
    """Returns the help-centre articles: policy pages, then how-tos for every device."""
    out: list[ArticleFacts] = []
    for title, category, body in _POLICY_ARTICLES:
        art = KbArticle(
            id=ids.next("kb"),
            title=title,
            body=body,
            category=category,
            tags=(category, "policy"),
            product_id=None,
            updated_at=epoch - timedelta(days=rng.randrange(30, 400)),
        )
        out.append(ArticleFacts(art, "policy", ()))
    for product in products:
        if product.category not in _DEVICE:
            continue
        for topic in _TOPICS_BY_CATEGORY[product.category]:
            title, body, facts = _howto_body(topic, product.name, rng)
            art = KbArticle(
                id=ids.next("kb"),
                title=title,
                body=body,
                category="how-to",
                tags=(product.category, topic, "how-to"),
                product_id=product.id,
                updated_at=epoch - timedelta(days=rng.randrange(5, 300)),
            )
            out.append(ArticleFacts(art, topic, facts))
    return out


_MACROS = (
    ("Generic: thanks for reaching out",
     "Hi {{first_name}},\n\nThanks for reaching out! We are looking into this and will get back to "
     "you soon.\n\nBest,\n{{agent_name}}", None, None, ()),
    ("Ask for the order number",
     "Hi {{first_name}},\n\nThanks for contacting us. Could you please send us your order number so "
     "we can look into this?\n\nBest,\n{{agent_name}}", "pending", None, ("needs_info",)),
    ("Refund processed",
     "Hi {{first_name}},\n\nGood news: we have processed your refund. It will appear on your "
     "statement within 5-10 business days.\n\nBest,\n{{agent_name}}", None, None, ("refund",)),
    ("Close: resolved",
     "Hi {{first_name}},\n\nWe are glad we could help and are marking this request as solved.\n\n"
     "Best,\n{{agent_name}}", "solved", None, ()),
    ("Shipping delay apology",
     "Hi {{first_name}},\n\nSorry for the delay with your shipment. Carriers are busy right now; "
     "your parcel is on its way.\n\nBest,\n{{agent_name}}", None, None, ("shipping_delay",)),
    ("Final sale: not refundable",
     "Hi {{first_name}},\n\nUnfortunately final-sale items cannot be returned or refunded.\n\n"
     "Best,\n{{agent_name}}", None, None, ("final_sale",)),
    ("Escalated to a specialist team",
     "Hi {{first_name}},\n\nWe have passed your request to a specialist team, who will contact "
     "you.\n\nBest,\n{{agent_name}}", "on-hold", None, ("escalated",)),
    ("Invoice download",
     "Hi {{first_name}},\n\nYou can download your invoice under Account > Orders > Download "
     "invoice.\n\nBest,\n{{agent_name}}", None, None, ("invoice",)),
)


def make_macros(ids: IdFactory) -> list[Macro]:
    """Returns the desk's macros (English; placeholders `{{first_name}}` and `{{agent_name}}`)."""
    return [
        Macro(id=ids.next("mac"), title=t, body=b, set_status=s, set_priority=p, add_tags=tags)
        for t, b, s, p, tags in _MACROS
    ]


# (groups, role) per agent; the first is the acting agent.
_AGENT_LAYOUT: tuple[tuple[tuple[str, ...], Literal["agent", "lead"]], ...] = (
    (("general", "returns", "billing", "shipping"), "agent"),
    (("general",), "agent"),
    (("general", "technical"), "agent"),
    (("billing",), "agent"),
    (("billing", "general"), "lead"),
    (("shipping",), "agent"),
    (("shipping", "returns"), "agent"),
    (("returns",), "agent"),
    (("technical",), "agent"),
    (("vip",), "agent"),
    (("vip",), "agent"),
    (("vip", "general"), "lead"),
)


def make_agents(fake: Faker, ids: IdFactory) -> list[Agent]:
    """Returns the desk's agents; `ACTING_AGENT_ID` is the first."""
    agents: list[Agent] = []
    for groups, role in _AGENT_LAYOUT:
        first, last = fake.first_name(), fake.last_name()
        agents.append(
            Agent(
                id=ids.next("agt"),
                name=f"{first} {last}",
                email=f"{ascii_slug(first)}.{ascii_slug(last)}@shop.example",
                groups=groups,
                role=role,
            )
        )
    return agents
