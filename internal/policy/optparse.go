package policy

import (
	"slices"
	"strings"
)

// optSpec lists every option a safe-list command may take. Anything else,
// including the abbreviations GNU getopt accepts for long options, makes
// the command not safe: an unknown option may write a file or run a program.
type optSpec struct {
	short     string   // short options without a value
	shortVal  string   // short options with a value, attached or in the next word
	shortFile string   // those of shortVal whose value is a file that is read
	long      []string // long options without a value
	longVal   []string // long options with a value, after = or in the next word
	longOpt   []string // long options with an optional value, only after =
	longFile  []string // those of longVal whose value is a file that is read
	numeric   bool     // -NUM is allowed (head -5, grep -3)
}

// option is one option found in the arguments.
type option struct {
	name  string // "-n" or "--lines"
	value *word  // nil when it has none
	file  bool   // the value is a file that is read
}

// parsedArgs are a command's arguments sorted into options and operands.
type parsedArgs struct {
	opts     []option
	operands []word
}

func (p *parsedArgs) has(names ...string) bool {
	for _, o := range p.opts {
		if slices.Contains(names, o.name) {
			return true
		}
	}
	return false
}

func (p *parsedArgs) value(names ...string) (string, bool) {
	for _, o := range p.opts {
		if o.value != nil && slices.Contains(names, o.name) {
			return o.value.value, true
		}
	}
	return "", false
}

// parse sorts args the GNU way (options may follow operands, -- ends them).
// It returns the first option it does not know, if any.
func (s *optSpec) parse(args []word) (parsedArgs, string) {
	var p parsedArgs
	endOpts := false
	for i := 0; i < len(args); i++ {
		v := args[i].value
		switch {
		case endOpts || v == "-" || !strings.HasPrefix(v, "-"):
			if p.operands == nil {
				// Room for all that is left, in one allocation.
				p.operands = make([]word, 0, len(args)-i)
			}
			p.operands = append(p.operands, args[i])
			continue
		case v == "--":
			endOpts = true
			continue
		}
		if long, ok := strings.CutPrefix(v, "--"); ok {
			name, val, hasVal := strings.Cut(long, "=")
			o := option{name: "--" + name}
			switch {
			case slices.Contains(s.long, name) && !hasVal:
			case slices.Contains(s.longOpt, name):
				if hasVal {
					w := litWord(val)
					o.value = &w
				}
			case slices.Contains(s.longVal, name):
				// A value in its own word keeps that word: bash expands
				// a leading ~ there, not after --name=.
				w := litWord(val)
				if !hasVal {
					if i+1 >= len(args) {
						return p, v
					}
					i++
					w = args[i]
				}
				o.value, o.file = &w, slices.Contains(s.longFile, name)
			default:
				return p, v
			}
			p.opts = append(p.opts, o)
			continue
		}
		if s.numeric && strings.Trim(v[1:], "0123456789") == "" {
			p.opts = append(p.opts, option{name: v})
			continue
		}
		for j := 1; j < len(v); j++ {
			ch := v[j]
			name := shortName(ch)
			if strings.IndexByte(s.short, ch) >= 0 {
				p.opts = append(p.opts, option{name: name})
				continue
			}
			if strings.IndexByte(s.shortVal, ch) < 0 {
				return p, name
			}
			w := litWord(v[j+1:])
			if j+1 == len(v) {
				if i+1 >= len(args) {
					return p, name
				}
				i++
				w = args[i]
			}
			p.opts = append(p.opts, option{name: name, value: &w, file: strings.IndexByte(s.shortFile, ch) >= 0})
			break
		}
	}
	return p, ""
}

// dashedASCII is "-" before each printable ASCII character in turn, so
// that a short option's name is a piece of it rather than a new string.
const dashedASCII = "-!-\"-#-$-%-&-'-(-)-*-+-,---.-/-0-1-2-3-4-5-6-7-8-9-:-;-<-=->-?-@-A-B-C-D-E-F-G-H-I-J-K-L-M-N-O-P-Q-R-S-T-U-V-W-X-Y-Z-[-\\-]-^-_-`-a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p-q-r-s-t-u-v-w-x-y-z-{-|-}-~"

// shortName returns "-" followed by the option letter ch.
func shortName(ch byte) string {
	if ch > ' ' && ch < 0x7f {
		i := 2 * int(ch-'!')
		return dashedASCII[i : i+2]
	}
	return "-" + string(ch)
}
