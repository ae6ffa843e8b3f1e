package survey

import (
	_ "embed"
	"strings"
	"sync"
)

// commonPasswordList holds the most common passwords, lower case, one a
// line (lines starting with # are comments).
//
//go:embed commonpasswords.txt
var commonPasswordList string

var commonPasswords = sync.OnceValue(func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, line := range strings.Split(commonPasswordList, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			m[line] = struct{}{}
		}
	}
	return m
})

// CommonPassword reports whether password is one of the most common ones,
// whatever its case (or its spaces around).
func CommonPassword(password string) bool {
	_, ok := commonPasswords()[strings.ToLower(strings.TrimSpace(password))]
	return ok
}
