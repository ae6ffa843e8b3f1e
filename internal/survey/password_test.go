package survey

import (
	"errors"
	"testing"
)

func TestCommonPassword(t *testing.T) {
	if n := len(commonPasswords()); n < 1000 || n > 10000 {
		t.Fatalf("%d common passwords, want 1,000 to 10,000", n)
	}
	for _, tc := range []struct {
		password string
		common   bool
	}{
		{"password123", true}, {"Password123", true}, {"PASSWORD1234", true}, {"1234567890", true},
		{"qwertyuiop", true}, {"iloveyou123", true}, {"Football2024", true}, {"superman123", true},
		{"correct horse battery", false}, {"a brand new secret", false}, {"", false}, {"#", false},
	} {
		if got := CommonPassword(tc.password); got != tc.common {
			t.Errorf("CommonPassword(%q) = %v, want %v", tc.password, got, tc.common)
		}
	}
	for _, pw := range []string{"password123", "Qwertyuiop"} {
		err := ValidateCredentials("ana@example.com", pw)
		var e *Error
		if !errors.As(err, &e) || e.Code != EINVALID || e.Fields["password"] == "" {
			t.Errorf("ValidateCredentials(%q) = %v, want a message beside the password", pw, err)
		}
	}
	if err := ValidateCredentials("ana@example.com", "correct horse battery"); err != nil {
		t.Errorf("a good password: %v", err)
	}
}
