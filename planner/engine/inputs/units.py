"""Unit constants. Inside the engine every quantity is an SI float (bytes, FLOP, seconds, watts, joules) or USD;
the unit lives in the variable name. Convert with these constants only at the edges (parse in, result out)."""

KB = 1e3
MB = 1e6
GB = 1e9
TB = 1e12
KiB = 2.0**10
MiB = 2.0**20
GiB = 2.0**30
TiB = 2.0**40

KILO = 1e3
MEGA = 1e6
GIGA = 1e9
TERA = 1e12
PETA = 1e15

BITS_PER_BYTE = 8.0

MINUTE = 60.0
HOUR = 3600.0
DAY = 86400.0
YEAR = 365.25 * DAY
MONTHS_PER_YEAR = 12
HOURS_PER_YEAR = YEAR / HOUR

KW = 1e3
MW = 1e6
KWH = 3.6e6  # joules in one kilowatt-hour
MWH = 3.6e9

BILLION = 1e9

BITS_PER_GBIT = 1e9  # network rates: 1 Gb/s = 1e9 bit/s
MICROSECOND = 1e-6
