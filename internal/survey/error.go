// Package survey is the domain: tenants, surveys, questions, answers and
// their summaries, with validation and the pure summary-merge logic. It does
// no I/O.
package survey

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Error codes, mapped to HTTP statuses in one place by the web package.
const (
	EINVALID   = "invalid"
	ENOTFOUND  = "not_found"
	ECONFLICT  = "conflict"
	EFORBIDDEN = "forbidden"
	EINTERNAL  = "internal"
)

// Error is the application's one error type. Message is safe to show to a
// user; Fields, for EINVALID, says what is wrong with each form field.
type Error struct {
	Code    string
	Message string
	Fields  map[string]string
	// Msgs are the problems of Fields that the web layer may put in a
	// respondent's language (NewAnswer's), by the same keys.
	Msgs map[string]Msg
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return fmt.Sprintf("%s: %s", e.Code, e.Message)
	}
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + e.Fields[k]
	}
	return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, strings.Join(parts, "; "))
}

// Errorf returns an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the *Error in err's chain, EINTERNAL for any
// other error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return EINTERNAL
	}
}

// ErrorMessage returns the user-safe message of err.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Message
	default:
		return "Internal error."
	}
}

// fieldErrors collects validation problems by field.
type fieldErrors map[string]string

func (f fieldErrors) add(field, format string, args ...any) {
	if _, ok := f[field]; !ok {
		f[field] = fmt.Sprintf(format, args...)
	}
}

func (f fieldErrors) err(what string) error {
	if len(f) == 0 {
		return nil
	}
	return &Error{Code: EINVALID, Message: what + " has problems; see each field.", Fields: f}
}
