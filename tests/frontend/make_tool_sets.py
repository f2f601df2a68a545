#!/usr/bin/env python3
"""Writes tool_sets.json: realistic strict tool sets for the random-walk test (seeded, reproducible).
Each set holds 1-4 tools drawn from the catalogue below (nested objects, arrays of objects, enums,
integers with bounds, numbers, booleans, nullable and optional parameters, bounded strings)."""
import json
import random


def S(max_len=None, **kw):
    s = {"type": "string"}
    if max_len:
        s["maxLength"] = max_len
    s.update(kw)
    return s


def E(*values):
    return {"type": "string", "enum": list(values)}


def I(lo=None, hi=None):
    s = {"type": "integer"}
    if lo is not None:
        s["minimum"] = lo
    if hi is not None:
        s["maximum"] = hi
    return s


def N(lo=None, hi=None):
    s = {"type": "number"}
    if lo is not None:
        s["minimum"] = lo
    if hi is not None:
        s["maximum"] = hi
    return s


B = {"type": "boolean"}


def NULL(s):
    t = dict(s)
    t["type"] = [s["type"], "null"]
    if "enum" in t:
        t["enum"] = t["enum"] + [None]
    return t


def O(props, required=None, desc=None):
    s = {"type": "object", "properties": props, "required": list(props) if required is None else required,
         "additionalProperties": False}
    if desc:
        s["description"] = desc
    return s


def A(items, max_items=None, min_items=None):
    s = {"type": "array", "items": items}
    if max_items is not None:
        s["maxItems"] = max_items
    if min_items is not None:
        s["minItems"] = min_items
    return s


ADDRESS = O({"street": S(40), "city": S(30), "zip": S(pattern="^[0-9]{5}$"), "country": E("US", "DE", "FR", "JP")})
MONEY = O({"amount": N(0, 1000000), "currency": E("USD", "EUR", "JPY")})

CATALOGUE = {
    "get_weather": O({"city": S(30), "days": I(1, 14), "unit": E("celsius", "fahrenheit")}, ["city"]),
    "search_web": O({"query": S(60), "max_results": I(1, 50), "safe": B}, ["query"]),
    "send_email": O({"to": A(S(40, format="email"), 5, 1), "subject": S(60), "body": S(200), "urgent": B},
                    ["to", "subject", "body"]),
    "create_event": O({"title": S(50), "start": S(format="date-time"), "duration_minutes": I(5, 480),
                       "attendees": A(O({"email": S(40), "optional": B}), 6), "location": NULL(S(40))},
                      ["title", "start", "duration_minutes", "attendees", "location"]),
    "place_order": O({"customer_id": I(1, 99999999), "items": A(O({"sku": S(12), "qty": I(1, 100), "gift": B}, ["sku", "qty"]), 5, 1),
                      "shipping": ADDRESS, "express": B}, ["customer_id", "items", "shipping"]),
    "refund_payment": O({"payment_id": S(pattern="^pay_[a-z0-9]{8}$"), "amount": MONEY, "reason": E("duplicate", "fraud", "requested_by_customer")}),
    "read_file": O({"path": S(80), "start_line": I(1), "end_line": I(1)}, ["path"]),
    "write_file": O({"path": S(80), "content": S(300), "append": B}, ["path", "content"]),
    "run_sql": O({"query": S(200), "database": E("prod", "staging", "analytics"), "limit": I(1, 1000), "explain": B}, ["query", "database"]),
    "get_directions": O({"origin": S(50), "destination": S(50), "mode": E("driving", "walking", "transit", "bicycling"),
                         "avoid": A(E("tolls", "highways", "ferries"), 3)}, ["origin", "destination"]),
    "get_stock_quote": O({"symbol": S(pattern="^[A-Z]{1,5}$"), "include_history": B, "days": I(1, 365)}, ["symbol"]),
    "set_thermostat": O({"room": E("living", "bedroom", "kitchen", "office"), "temperature": N(10, 30), "mode": E("heat", "cool", "auto", "off")}),
    "toggle_lights": O({"rooms": A(E("living", "bedroom", "kitchen", "office", "garage"), 5, 1), "on": B, "brightness": I(0, 100)}, ["rooms", "on"]),
    "create_contact": O({"name": O({"first": S(20), "last": S(20)}), "phones": A(O({"kind": E("mobile", "home", "work"), "number": S(pattern="^\\+?[0-9 ]{6,15}$")}), 3),
                         "company": NULL(S(30)), "tags": A(S(15), 4)}, ["name", "phones", "company"]),
    "book_flight": O({"from": S(pattern="^[A-Z]{3}$"), "to": S(pattern="^[A-Z]{3}$"), "date": S(format="date"),
                      "passengers": A(O({"name": S(30), "age": I(0, 120), "seat": NULL(E("window", "aisle", "middle"))}), 4, 1),
                      "cabin": E("economy", "premium", "business", "first")}, ["from", "to", "date", "passengers"]),
    "book_hotel": O({"city": S(30), "check_in": S(format="date"), "nights": I(1, 30), "guests": I(1, 8), "max_price": MONEY, "breakfast": B},
                    ["city", "check_in", "nights", "guests"]),
    "execute_python": O({"code": S(300), "timeout_seconds": I(1, 120)}, ["code"]),
    "translate_text": O({"text": S(200), "source": NULL(E("en", "de", "fr", "ja", "zh")), "target": E("en", "de", "fr", "ja", "zh"), "formal": B},
                        ["text", "source", "target"]),
    "create_issue": O({"repo": S(pattern="^[a-z0-9-]+/[a-z0-9-]+$"), "title": S(80), "body": S(300), "labels": A(E("bug", "feature", "docs", "question"), 4),
                       "assignees": A(S(20), 3), "priority": I(1, 5)}, ["repo", "title"]),
    "post_message": O({"channel": S(pattern="^#[a-z0-9_-]{1,20}$"), "text": S(200), "thread_ts": NULL(S(20)), "mentions": A(S(20), 5)}, ["channel", "text", "thread_ts"]),
    "schedule_meeting": O({"participants": A(O({"name": S(30), "email": S(40), "required": B}), 8, 1), "duration": I(15, 240),
                           "window": O({"earliest": S(format="date-time"), "latest": S(format="date-time")}), "recurrence": E("none", "daily", "weekly", "monthly")},
                          ["participants", "duration", "window"]),
    "track_shipment": O({"carrier": E("ups", "fedex", "dhl", "usps"), "tracking_number": S(pattern="^[A-Z0-9]{8,22}$")}),
    "update_inventory": O({"warehouse": E("north", "south", "east", "west"), "changes": A(O({"sku": S(12), "delta": I(-1000, 1000), "reason": E("sale", "restock", "damage", "audit")}), 10, 1)}),
    "find_recipes": O({"ingredients": A(S(20), 8, 1), "diet": A(E("vegan", "vegetarian", "gluten_free", "keto"), 4), "max_minutes": I(5, 240), "servings": I(1, 12)}, ["ingredients"]),
    "play_music": O({"query": S(60), "kind": E("track", "album", "artist", "playlist"), "shuffle": B, "volume": I(0, 100)}, ["query", "kind"]),
    "convert_currency": O({"amount": N(0), "from": E("USD", "EUR", "GBP", "JPY", "CHF"), "to": E("USD", "EUR", "GBP", "JPY", "CHF")}),
    "create_ticket": O({"customer": O({"id": I(1), "email": S(40), "tier": E("free", "pro", "enterprise")}), "subject": S(80), "severity": E("low", "medium", "high", "critical"),
                        "attachments": A(O({"name": S(30), "size_bytes": I(0, 10000000)}), 3)}, ["customer", "subject", "severity"]),
    "calculate_route_cost": O({"stops": A(O({"lat": N(-90, 90), "lon": N(-180, 180), "wait_minutes": I(0, 120)}, ["lat", "lon"]), 6, 2), "fuel_price": N(0, 10), "round_trip": B}, ["stops", "fuel_price"]),
    "set_reminder": O({"text": S(100), "at": S(format="date-time"), "repeat": NULL(E("daily", "weekly"))}),
    "query_crm": O({"filters": A(O({"field": E("name", "email", "company", "stage"), "op": E("eq", "contains", "starts_with"), "value": S(30)}), 4), "sort": O({"field": E("created", "updated", "name"), "desc": B}),
                    "page": I(1, 100), "page_size": I(1, 100)}, ["filters"]),
    "resize_image": O({"url": S(100, pattern="^https://[a-z0-9.-]+/[A-Za-z0-9/_.-]*$"), "width": I(1, 8192), "height": I(1, 8192), "keep_aspect": B, "format": E("png", "jpeg", "webp")}, ["url", "width", "height"]),
    "get_time": O({"timezone": S(pattern="^[A-Za-z]+/[A-Za-z_]+$")}),
    "list_files": O({"directory": S(80), "recursive": B, "pattern": NULL(S(30)), "max_depth": I(1, 10)}, ["directory"]),
    "approve_expense": O({"expense_id": I(1), "approved": B, "comment": NULL(S(100)), "amount": MONEY}, ["expense_id", "approved", "comment"]),
    "noop": O({}),
}


def main():
    rng = random.Random(20261201)
    names = sorted(CATALOGUE)
    sets = []
    # Every tool alone first, then mixed sets of 2-4 tools.
    for n in names:
        sets.append([n])
    while len(sets) < 60:
        k = rng.randint(2, 4)
        sets.append(rng.sample(names, k))
    out = []
    for i, s in enumerate(sets):
        out.append({"name": f"set{i:02d}", "tools": [{"type": "function", "function": {"name": n, "description": n.replace("_", " "), "parameters": CATALOGUE[n], "strict": True}} for n in s]})
    with open("tool_sets.json", "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
