package approval

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	promptTitle = "Sidecar: a remote agent wants to run a command"
	promptLine  = "Approve? [y/a/N/d] "
	reasonLine  = "Reason for the agent (one line): "
	timeLayout  = "2006-01-02 15:04:05 MST"

	maxBoxWidth = 100 // columns, borders included
	labelWidth  = 8   // "session " and friends
	gutterWidth = 2   // "$ " before the command

	wrapEnd  = "↩" // ends a row that continues on the next one, right after its last character
	wrapNext = "↪" // starts the continuation, right before its first character
)

// render returns the text of the prompt for req: a box with the request's
// details and its command, then promptLine with no newline. at is shown as
// the time of the request, and wait as how long the prompt waits.
//
// The box is as wide as its content needs, up to maxBoxWidth columns;
// longer values wrap. The wrap marks sit right against the characters on
// either side of the break, so a space at the break stays visible. Each line
// of a multi-line command gets its own row, "$ " before the first and "> "
// before the rest, as a shell shows them.
func render(req Request, at time.Time, wait time.Duration) string {
	when := at.Format(timeLayout)
	if !req.At.IsZero() {
		when = req.At.In(at.Location()).Format(timeLayout)
		if waited := at.Sub(req.At).Truncate(time.Second); waited >= time.Second {
			when += " (waiting " + waited.String() + ")"
		}
	}
	fields := []struct{ label, value string }{
		{"time", when},
		{"request", req.ID},
		{"client", req.Client},
		{"session", req.Session},
		{"cwd", req.Cwd},
		{"timeout", formatTimeout(req.Timeout)},
		{"why", req.Why},
		{"answer", "y once · a always (this exact command, this session)"},
		{"", "n no · d no, with a reason you type for the agent"},
		{"", "no answer within " + formatDuration(wait) + " is no"},
	}
	commandLines := strings.Split(req.Command, "\n")

	values := make([][]unit, len(fields))
	inner := displayWidth(promptTitle) + 2
	for i, f := range fields {
		value := f.value
		if value == "" && f.label != "" {
			value = "(not given)"
		}
		values[i] = units(value)
		inner = max(inner, labelWidth+unitsWidth(values[i]))
	}
	commands := make([][]unit, len(commandLines))
	for i, line := range commandLines {
		commands[i] = units(line)
		inner = max(inner, gutterWidth+unitsWidth(commands[i]))
	}
	inner = min(inner, maxBoxWidth-4)

	var b strings.Builder
	// Start on a fresh line whatever the terminal showed before.
	b.WriteString("\n┌─ " + promptTitle + " " + strings.Repeat("─", inner-1-displayWidth(promptTitle)) + "┐\n")
	for i, f := range fields {
		for j, row := range wrap(values[i], inner-labelWidth) {
			lead := fmt.Sprintf("%-*s", labelWidth, f.label)
			if j > 0 {
				lead = strings.Repeat(" ", labelWidth-1) + wrapNext
			}
			writeRow(&b, inner, lead, row)
		}
	}
	b.WriteString("├" + strings.Repeat("─", inner+2) + "┤\n")
	for i, line := range commands {
		for j, row := range wrap(line, inner-gutterWidth) {
			lead := "> "
			switch {
			case j > 0:
				lead = " " + wrapNext
			case i == 0:
				lead = "$ "
			}
			writeRow(&b, inner, lead, row)
		}
	}
	b.WriteString("└" + strings.Repeat("─", inner+2) + "┘\n")
	b.WriteString(promptLine)
	return b.String()
}

// writeRow writes one row of the box: lead (a label or gutter) and text,
// padded to the box's inner width.
func writeRow(b *strings.Builder, inner int, lead string, r row) {
	pad := max(inner-displayWidth(lead)-r.width, 0)
	b.WriteString("│ " + lead + r.text + strings.Repeat(" ", pad) + " │\n")
}

// unit is one display unit of an escaped string (see visit).
type unit struct {
	text  string
	width int
}

// units splits s into display units. The wrap marks are escaped too, so
// that text in a value can never pass for a wrap the prompt made.
func units(s string) []unit {
	var us []unit
	visit(s, func(text string, width int) {
		if text == wrapEnd || text == wrapNext {
			r, _ := utf8.DecodeRuneInString(text)
			text = codePoint(r)
			width = len(text)
		}
		us = append(us, unit{text, width})
	})
	return us
}

func unitsWidth(us []unit) int {
	w := 0
	for _, u := range us {
		w += u.width
	}
	return w
}

// displayWidth returns the columns that s, text of the prompt's own, takes.
func displayWidth(s string) int {
	w := 0
	visit(s, func(_ string, width int) { w += width })
	return w
}

// row is one row's worth of a wrapped value.
type row struct {
	text  string
	width int
}

// wrap splits us into rows of at most avail columns. Every row but the last
// ends with wrapEnd; zero-width units stay on the row of the unit they
// follow, and a unit wider than a row gets a row of its own.
func wrap(us []unit, avail int) []row {
	rest := unitsWidth(us)
	var rows []row
	for {
		if rest <= avail {
			var b strings.Builder
			for _, u := range us {
				b.WriteString(u.text)
			}
			return append(rows, row{b.String(), rest})
		}
		var b strings.Builder
		n, w := 0, 0
		for n < len(us) && (us[n].width == 0 || w+us[n].width <= avail-1) {
			b.WriteString(us[n].text)
			w += us[n].width
			n++
		}
		if n == 0 {
			b.WriteString(us[0].text)
			w = us[0].width
			n = 1
		}
		b.WriteString(wrapEnd)
		rows = append(rows, row{b.String(), w + 1})
		us, rest = us[n:], rest-w
	}
}

// formatDuration shows d in whole seconds when it is a whole number of
// seconds ("60s", "300s": the protocol's unit), and as Go writes it
// otherwise ("200ms").
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// formatTimeout is formatDuration, with minutes and hours spelled out too
// when there are any: "5400s (1h30m)".
func formatTimeout(d time.Duration) string {
	s := formatDuration(d)
	if d < time.Minute || d%time.Second != 0 {
		return s
	}
	long := strings.TrimSuffix(d.String(), "0s")
	if strings.HasSuffix(long, "h0m") {
		long = strings.TrimSuffix(long, "0m")
	}
	return s + " (" + long + ")"
}
