package policy

import "strings"

// historyCommand denies the commands that clear, disable or destroy shell
// history.
func historyCommand(name string, args []word) *denial {
	switch name {
	case "history":
		for i := range args {
			if v := args[i].value; len(v) > 1 && v[0] == '-' && strings.ContainsAny(v[1:], "cdw") {
				return &denial{category: catHistory, what: "history " + v}
			}
		}
	case "unset":
		for i := range args {
			if args[i].value == "HISTFILE" {
				return &denial{category: catHistory, what: "unset HISTFILE"}
			}
		}
	case "set":
		for i := 0; i+1 < len(args); i++ {
			if args[i].value == "+o" && args[i+1].value == "history" {
				return &denial{category: catHistory, what: "set +o history"}
			}
		}
	case "rm", "shred", "truncate", "unlink", "srm", "tee":
		for i := range args {
			if isHistoryFile(&args[i]) {
				return &denial{category: catHistory, what: name + " " + args[i].display()}
			}
		}
	case "cp", "mv", "ln", "install":
		if n := len(args); n > 0 && isHistoryFile(&args[n-1]) {
			return &denial{category: catHistory, what: name + " … " + args[n-1].display()}
		}
	case "dd":
		for i := range args {
			if of, ok := strings.CutPrefix(args[i].value, "of="); ok {
				if w := litWord(of); isHistoryFile(&w) {
					return &denial{category: catHistory, what: "dd " + args[i].display()}
				}
			}
		}
	}
	return nil
}

// historyAssign denies setting HISTFILE to nothing or /dev/null and the
// history sizes to 0.
func historyAssign(name string, value *word) *denial {
	if !value.known() {
		return nil
	}
	v := value.value
	switch name {
	case "HISTFILE":
		if v == "" || v == "/dev/null" {
			return &denial{category: catHistory, what: name + "=" + v}
		}
	case "HISTSIZE", "HISTFILESIZE", "SAVEHIST":
		if v == "0" {
			return &denial{category: catHistory, what: name + "=0"}
		}
	}
	return nil
}

// isHistoryFile reports whether w names a shell history file:
// .bash_history, .zsh_history, fish_history, .history and the like.
func isHistoryFile(w *word) bool {
	if !w.known() {
		return false
	}
	base := w.value
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	return base == ".history" || base == ".zhistory" || strings.HasSuffix(base, "_history")
}
