"""Fake order tools: look-ups and searches (read) and cancellations and refunds (write).

Each function takes the conversation's :class:`~fcbench.fake_tools.store.FakeStore`, arguments
already validated against the offered tool's schema, and the call's
:class:`~fcbench.fake_tools.store.CallContext`, and returns a result envelope
(:mod:`fcbench.fake_tools.results`); a rule deep inside may raise
:class:`~fcbench.fake_tools.results.ToolFailure` instead. Business rules (the same as the
built-in tool descriptions):

* an order on hold (``hold``) refuses every write with ``PERMISSION_DENIED``;
* an order with ``unavailable_first: N`` fails its first N reads in a conversation with
  ``TEMPORARILY_UNAVAILABLE`` (a retry of the same call then succeeds);
* only ``pending`` orders can be cancelled; anything else is a ``CONFLICT``;
* only paid orders that are not cancelled and not refunded in full can be refunded, for at most
  the remaining balance; refunding an unpaid order is a ``CONFLICT``.
"""

from __future__ import annotations

import re
from typing import Any

from fcbench.fake_tools.results import ToolFailure, fail, ok
from fcbench.fake_tools.store import CallContext, FakeStore, SideEffect

ORDER_ID_SHAPE = re.compile(r"ORD-[0-9]+")
"""What every order id of the data set looks like (a NOT_FOUND for another shape says so)."""

CANCELLABLE = frozenset({"pending"})
"""Statuses an order can be cancelled from."""

DEFAULT_SEARCH_LIMIT = 5
DEFAULT_QUERY_LIMIT = 10


def _amount(cents: int) -> float:
    return round(cents / 100, 2)


def _refunded(order: dict[str, Any]) -> bool:
    return int(order.get("refunded_cents", 0)) >= int(order.get("total_cents", 0)) > 0


def order_view(order: dict[str, Any]) -> dict[str, Any]:
    """The order as a look-up returns it (every field a support agent may see)."""
    view: dict[str, Any] = {
        "order_id": order["order_id"],
        "status": order["status"],
        "paid": bool(order.get("paid")),
        "refunded": _refunded(order),
        "total": _amount(int(order.get("total_cents", 0))),
        "currency": order.get("currency", "USD"),
        "customer_email": order.get("email"),
        "created_at": order.get("created_at"),
        "items": order.get("items", []),
    }
    if int(order.get("refunded_cents", 0)):
        view["refunded_amount"] = _amount(int(order["refunded_cents"]))
    for name in ("shipping", "hold", "notes"):
        if order.get(name):
            view[name] = order[name]
    return view


def order_summary(order: dict[str, Any]) -> dict[str, Any]:
    """The short form a listing returns."""
    return {
        "order_id": order["order_id"],
        "status": order["status"],
        "refunded": _refunded(order),
        "created_at": order.get("created_at"),
        "total": _amount(int(order.get("total_cents", 0))),
        "currency": order.get("currency", "USD"),
    }


def find_order(store: FakeStore, args: dict[str, Any]) -> dict[str, Any]:
    """The order named by ``args["order_id"]``; raises :class:`ToolFailure` when absent or unknown."""
    order_id = args.get("order_id")
    if not isinstance(order_id, str) or not order_id:
        raise ToolFailure(
            fail("INVALID_ARGUMENTS", "order_id is required.", ["order_id: an order ID is required"])
        )
    order = store.orders.get(order_id)
    if order is None:
        details = [f"order_id: {order_id!r} not found"]
        if not ORDER_ID_SHAPE.fullmatch(order_id):
            details.append("order_id: order IDs are 'ORD-' followed by digits, e.g. 'ORD-001'")
        raise ToolFailure(fail("NOT_FOUND", f"No order with ID {order_id} exists.", details))
    return order


def _readable_order(store: FakeStore, args: dict[str, Any]) -> dict[str, Any]:
    order = find_order(store, args)
    flaky = int(order.get("unavailable_first", 0))
    if flaky and store.touch(f"read:{order['order_id']}") < flaky:
        raise ToolFailure(
            fail(
                "TEMPORARILY_UNAVAILABLE",
                "The order service timed out while reading this order. Retry the same request.",
                ["retry_after_ms: 500"],
            )
        )
    return order


def _customer_orders(store: FakeStore, email: str) -> list[dict[str, Any]]:
    orders = store.customer_orders(email)
    if not orders:
        raise ToolFailure(
            fail("NOT_FOUND", f"No customer with email {email} exists.", [f"email: {email!r} not found"])
        )
    return orders


def _listing(orders: list[dict[str, Any]], args: dict[str, Any], default_limit: int) -> dict[str, Any]:
    status = args.get("status")
    matching = [o for o in orders if status is None or o.get("status") == status]
    limit = args.get("limit", default_limit)
    limit = limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else default_limit
    return {
        "count": len(matching),
        "orders": [order_summary(o) for o in matching[:limit]],
        "truncated": len(matching) > limit,
    }


def lookup_order(store: FakeStore, args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """``lookup_order(order_id)``: one order by its exact public id."""
    return ok({"order": order_view(_readable_order(store, args))})


def search_orders(store: FakeStore, args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """``search_orders(email, status?, limit?)``: a customer's orders, by order id."""
    email = str(args.get("email", ""))
    return ok({"email": email} | _listing(_customer_orders(store, email), args, DEFAULT_SEARCH_LIMIT))


def query_order(store: FakeStore, args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """``query_order(order_id?, status?, limit?)``: one order by id, or the signed-in customer's orders."""
    if args.get("order_id") is not None:
        return ok({"orders": [order_view(_readable_order(store, args))]})
    email = args.get("email", store.session_email)
    if isinstance(email, str):
        orders = _customer_orders(store, email)
    else:
        orders = sorted(store.orders.values(), key=lambda o: str(o["order_id"]))
    return ok(_listing(orders, args, DEFAULT_QUERY_LIMIT))


def _check_not_held(order: dict[str, Any], action: str) -> None:
    hold = order.get("hold")
    if hold:
        raise ToolFailure(
            fail(
                "PERMISSION_DENIED",
                f"Order {order['order_id']} is on hold ({hold}); {action} it needs a supervisor "
                "and cannot be done here.",
                [f"order_id: {order['order_id']} is on hold: {hold}"],
            )
        )


CANCEL_CONFLICTS: dict[str, str] = {
    "paid": "it is already paid; a paid order can be refunded with create_refund instead",
    "completed": "it is completed; a completed order can be refunded with create_refund instead",
    "processing": "it is already being prepared for shipping",
    "shipped": "it has already shipped",
    "delivered": "it has already been delivered",
    "cancelled": "it is already cancelled",
}
"""Why an order in each non-cancellable status cannot be cancelled."""


def cancel_order(store: FakeStore, args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """``cancel_order(order_id, reason?)``: cancel a pending order."""
    order = find_order(store, args)
    _check_not_held(order, "cancelling")
    status = str(order["status"])
    if status not in CANCELLABLE:
        why = CANCEL_CONFLICTS.get(status, f"its status is {status}")
        raise ToolFailure(
            fail(
                "CONFLICT",
                f"Order {order['order_id']} cannot be cancelled: {why}. "
                "Only pending orders can be cancelled.",
                [f"status: {status!r} is not one of {sorted(CANCELLABLE)}"],
            )
        )
    order["status"] = "cancelled"
    cancellation_id = "CX-" + ctx.key[:10].upper()
    change = {"status": [status, "cancelled"], "cancellation_id": cancellation_id}
    store.record(SideEffect(tool=ctx.tool, key=ctx.key, target=str(order["order_id"]), change=change))
    return ok(
        {
            "order_id": order["order_id"],
            "status": "cancelled",
            "previous_status": status,
            "cancellation_id": cancellation_id,
        }
    )


def _check_refundable(order: dict[str, Any]) -> None:
    order_id, status = order["order_id"], str(order["status"])
    if not order.get("paid"):
        raise ToolFailure(
            fail(
                "CONFLICT",
                f"Order {order_id} is {status}: no payment was captured, so there is nothing to refund. "
                "An unpaid pending order can be cancelled instead.",
                [f"status: {status!r}; paid: false"],
            )
        )
    if status == "cancelled":
        raise ToolFailure(
            fail(
                "CONFLICT",
                f"Order {order_id} is cancelled; its payment was already released.",
                [f"status: {status!r}"],
            )
        )
    if _refunded(order):
        raise ToolFailure(
            fail("CONFLICT", f"Order {order_id} has already been refunded in full.", ["refunded: true"])
        )


def create_refund(store: FakeStore, args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    """``create_refund(order_id, amount?, reason)``: refund a paid order, in full or in part."""
    order = find_order(store, args)
    _check_not_held(order, "refunding")
    _check_refundable(order)
    total, refunded = int(order.get("total_cents", 0)), int(order.get("refunded_cents", 0))
    balance = total - refunded
    amount = args.get("amount")
    cents = balance if amount is None else round(float(amount) * 100)
    if not 0 < cents <= balance:
        raise ToolFailure(
            fail(
                "INVALID_ARGUMENTS",
                f"The refund amount must be above 0 and at most the refundable balance {_amount(balance)}.",
                [f"amount: {amount!r} is outside (0, {_amount(balance)}]"],
            )
        )
    order["refunded_cents"] = refunded + cents
    refund_id = "RF-" + ctx.key[:10].upper()
    change = {"refund_id": refund_id, "amount_cents": cents, "refunded_cents": [refunded, refunded + cents]}
    store.record(SideEffect(tool=ctx.tool, key=ctx.key, target=str(order["order_id"]), change=change))
    return ok(
        {
            "refund_id": refund_id,
            "order_id": order["order_id"],
            "amount": _amount(cents),
            "currency": order.get("currency", "USD"),
            "refunded_in_full": _refunded(order),
            "reason": args.get("reason"),
        }
    )
