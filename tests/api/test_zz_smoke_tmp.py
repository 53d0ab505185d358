from .conftest import Api, star_city_bets


def test_smoke(api: Api) -> None:
    t = api.post("/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}, headers={"Idempotency-Key": "k1"})
    assert t.status == 201, t.body
    t2 = api.post("/v1/tables", {"profile": "star-city", "tier": "star-city-fun", "banking": "house"}, headers={"Idempotency-Key": "k1"})
    assert t2.status == 201 and t2.body == t.body, t2.body
    print(t2.headers)
    tid = t.body["table_id"]
    s = api.post(f"/v1/tables/{tid}/shoes", {"client_seed": "x"}, headers={"Idempotency-Key": "k2"})
    assert s.status == 201, s.body
    d = api.post(f"/v1/shoes/{s.body['shoe_id']}/rounds", {"bets": star_city_bets()}, headers={"Idempotency-Key": "k3"})
    assert d.status == 201, d.body
    d2 = api.post(f"/v1/shoes/{s.body['shoe_id']}/rounds", {"bets": star_city_bets()}, headers={"Idempotency-Key": "k3"})
    assert d2.body == d.body
    d3 = api.post(f"/v1/shoes/{s.body['shoe_id']}/rounds", {}, headers={"Idempotency-Key": "k3"})
    assert d3.status == 422, d3.body
    v = api.post(f"/v1/rounds/{d.body['round_id']}/void", {"reason": "dealer error"})
    assert v.status == 200, v.body
    st = api.post(f"/v1/rounds/{d.body['round_id']}/settlement")
    assert st.status == 409 and st.error["code"] == "round_voided", st.body
    d4 = api.post(f"/v1/shoes/{s.body['shoe_id']}/rounds", {"bets": star_city_bets()})
    se = api.post(f"/v1/rounds/{d4.body['round_id']}/settlement", headers={"Idempotency-Key": "k4"})
    assert se.status == 200, se.body
    a = api.get(f"/v1/tables/{tid}/audit")
    assert a.status == 200 and a.body["verified"], a.body
    c = api.post(f"/v1/shoes/{s.body['shoe_id']}/close", headers={"Idempotency-Key": "k5"})
    assert c.status == 200, c.body
    p = api.get(f"/v1/shoes/{s.body['shoe_id']}/proof", key=None)
    print(p.body["rounds"][0])
    from baccarat.verify import verify_proof
    print(verify_proof(p.body).line())
    a = api.get(f"/v1/tables/{tid}/audit")
    assert a.status == 200 and a.body["verified"], a.body
    print(a.body)
