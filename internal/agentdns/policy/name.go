package policy

import "strings"

// Normalize returns name in the form policies, lists and the inventory use:
// lower case, without the trailing root dot. It does not allocate when name
// is already lower case.
func Normalize(name string) string {
	name = strings.TrimSuffix(name, ".")
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(name)
		}
	}
	return name
}
