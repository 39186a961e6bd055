class_name NpcBrainTime
extends RefCounted
## Conversions between the game's clock (Unix seconds, UTC) and the protocol's RFC 3339 text.

const WEEKDAYS: PackedStringArray = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
const MONTHS: PackedStringArray = [
	"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
]
const RFC3339_PATTERN := (
	"^(\\d{4})-(\\d{2})-(\\d{2})[Tt ](\\d{2}):(\\d{2}):(\\d{2})(?:\\.\\d+)?"
	+ "(?:[Zz]|([+-])(\\d{2}):(\\d{2}))$"
)

static var _rfc3339: RegEx = RegEx.create_from_string(RFC3339_PATTERN)


## Parses "2026-02-13T07:00:00Z" (fractional seconds and a UTC offset allowed); -1 if invalid.
static func parse_rfc3339(text: String) -> int:
	var found := _rfc3339.search(text.strip_edges())
	if found == null:
		return -1
	var unix := Time.get_unix_time_from_datetime_dict({
		"year": found.get_string(1).to_int(),
		"month": found.get_string(2).to_int(),
		"day": found.get_string(3).to_int(),
		"hour": found.get_string(4).to_int(),
		"minute": found.get_string(5).to_int(),
		"second": found.get_string(6).to_int(),
	})
	if found.get_string(7) != "":
		var offset_s := found.get_string(8).to_int() * 3600 + found.get_string(9).to_int() * 60
		unix += -offset_s if found.get_string(7) == "+" else offset_s
	return unix


## Formats Unix seconds as RFC 3339 in UTC, e.g. "2026-02-13T07:00:00Z".
static func to_rfc3339(unix_time: int) -> String:
	return Time.get_datetime_string_from_unix_time(unix_time) + "Z"


## A clock label for people, e.g. "Fri 13 Feb 2026  07:05".
static func to_label(unix_time: int) -> String:
	var dt := Time.get_datetime_dict_from_unix_time(unix_time)
	return "%s %d %s %d  %02d:%02d" % [
		WEEKDAYS[dt.weekday], dt.day, MONTHS[dt.month - 1], dt.year, dt.hour, dt.minute,
	]
