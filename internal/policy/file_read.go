package policy

import (
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// readFull reads r into buf until buf is full or r ends.
func readFull(r io.Reader, buf []byte) (int, error) {
	n, err := io.ReadFull(r, buf)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

// yamlLine finds the line number yaml.v3 puts in its error text.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlErrorLine returns the line a yaml.v3 error names, or 1.
func yamlErrorLine(err error) int {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil {
			return n
		}
	}
	return 1
}

// yamlErrorText is a yaml.v3 error without its "yaml: line N:" lead.
func yamlErrorText(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	if loc := yamlLine.FindStringIndex(s); loc != nil && loc[0] == 0 {
		s = strings.TrimLeft(s[loc[1]:], ": ")
	}
	return s
}
