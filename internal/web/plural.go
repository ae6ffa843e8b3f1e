package web

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/surveys-dev/surveys/internal/survey"
)

// pluralCount is the pages' "plural" function: {{plural .Total "answer"}}
// is "1 answer" or "2 answers" (survey.Count). n is any integer, or a
// figure already written as one (a chart's "12").
func pluralCount(n any, noun string) (string, error) {
	i, err := countOf(n)
	if err != nil {
		return "", err
	}
	return survey.Count(i, noun), nil
}

// pluralNoun is the pages' "noun" function, for a count shown apart from
// its noun: <strong>{{.Total}}</strong> {{noun .Total "answer"}}.
func pluralNoun(n any, noun string) (string, error) {
	i, err := countOf(n)
	if err != nil {
		return "", err
	}
	return survey.Noun(i, noun), nil
}

func countOf(n any) (int64, error) {
	v := reflect.ValueOf(n)
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return int64(v.Uint()), nil
	case reflect.String:
		if i, err := strconv.ParseInt(v.String(), 10, 64); err == nil {
			return i, nil
		}
	}
	return 0, fmt.Errorf("web: plural of %v (%T): not a count", n, n)
}
