"""MQTT 3.1.1 packets as the standard lays them out (section numbers of MQTT 3.1.1)."""

import mqtt


def test_remaining_length_encoding():  # 2.2.3
    assert mqtt._length(0) == b"\x00"
    assert mqtt._length(127) == b"\x7f"
    assert mqtt._length(128) == b"\x80\x01"
    assert mqtt._length(16383) == b"\xff\x7f"
    assert mqtt._length(16384) == b"\x80\x80\x01"
    assert mqtt._length(268435455) == b"\xff\xff\xff\x7f"


def test_connect_with_will_user_and_keepalive():  # 3.1
    p = mqtt.connect_packet("t1", 30, ("c/t1/status", b"offline", True, 1), "u", "pw")
    body = (
        b"\x00\x04MQTT\x04"
        + bytes((0x80 | 0x40 | 0x20 | 0x08 | 0x04 | 0x02,))
        + b"\x00\x1e"
        + b"\x00\x02t1"
        + b"\x00\x0bc/t1/status"
        + b"\x00\x07offline"
        + b"\x00\x01u"
        + b"\x00\x02pw"
    )
    assert p == b"\x10" + bytes((len(body),)) + body
    assert mqtt.connect_packet("x") == b"\x10\x0d\x00\x04MQTT\x04\x02\x00\x1e\x00\x01x"


def test_publish_qos0_qos1_retain_dup():  # 3.3
    assert mqtt.publish_packet("a/b", b"hi") == b"\x30\x07\x00\x03a/bhi"
    assert mqtt.publish_packet("a/b", b"hi", retain=True) == b"\x31\x07\x00\x03a/bhi"
    assert mqtt.publish_packet("a/b", b"hi", qos=1, pid=258) == b"\x32\x09\x00\x03a/b\x01\x02hi"
    assert mqtt.publish_packet("a/b", b"", qos=1, pid=1, dup=True)[0] == 0x3A
    big = mqtt.publish_packet("t", b"x" * 200)
    assert big[1:3] == b"\xcb\x01" and len(big) == 3 + 3 + 200


def test_small_packets():
    assert mqtt.puback_packet(7) == b"\x40\x02\x00\x07"
    assert mqtt.PINGREQ_PACKET == b"\xc0\x00" and mqtt.DISCONNECT_PACKET == b"\xe0\x00"
