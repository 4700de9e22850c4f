package events

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJSON appends e as one JSON object, byte for byte what
// encoding/json makes of it (FuzzAppendJSON holds the two together), at a
// fraction of the cost: every query writes one.
func (e *Event) AppendJSON(b []byte) []byte {
	b = append(b, `{"time":"`...)
	b = e.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","event":`...)
	b = appendString(b, e.Event)
	b = appendField(b, "policy", e.Policy)
	b = appendField(b, "client", e.Client)
	b = appendField(b, "listener", e.Listener)
	b = appendField(b, "name", e.Name)
	b = appendField(b, "type", e.Type)
	b = appendField(b, "decision", e.Decision)
	b = appendField(b, "rule", e.Rule)
	b = appendField(b, "rcode", e.Rcode)
	if len(e.Answers) > 0 {
		b = append(b, `,"answers":[`...)
		for i, a := range e.Answers {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, a)
		}
		b = append(b, ']')
	}
	if e.Cached {
		b = append(b, `,"cached":true`...)
	}
	if e.LatencyMs != 0 {
		b = append(b, `,"latency_ms":`...)
		b = appendFloat(b, e.LatencyMs)
	}
	b = appendField(b, "detail", e.Detail)
	return append(b, '}')
}

func appendField(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

// appendFloat formats like encoding/json: the shortest repr, exponent form
// only for very large or small magnitudes.
func appendFloat(b []byte, f float64) []byte {
	abs := f
	if abs < 0 {
		abs = -abs
	}
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// encoding/json writes e-07, not e-7... it clears one leading zero.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hex = "0123456789abcdef"

// appendString quotes s as encoding/json does with HTML escaping on:
// control characters, <, >, &, U+2028 and U+2029 as \u escapes, invalid
// UTF-8 as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
