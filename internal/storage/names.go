package storage

import (
	"fmt"
	"strings"
	"time"
)

// Both implementations call these checks before doing anything, so that a
// name the embedded store accepts is one Azure accepts too.

// ValidateTableName checks Azure's table name rule: 3–63 letters and digits,
// starting with a letter.
func ValidateTableName(name string) error {
	if len(name) < 3 || len(name) > 63 {
		return fmt.Errorf("table name %q: must be 3 to 63 characters: %w", name, ErrInvalid)
	}
	for i, r := range name {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return fmt.Errorf("table name %q: only letters and digits, starting with a letter: %w", name, ErrInvalid)
		}
	}
	if strings.EqualFold(name, "tables") {
		return fmt.Errorf("table name %q is reserved: %w", name, ErrInvalid)
	}
	return nil
}

// ValidateContainerName checks Azure's container name rule: 3–63 lower-case
// letters, digits and single hyphens, starting and ending with a letter or
// digit.
func ValidateContainerName(name string) error {
	return validateDNSName("container", name)
}

// ValidateQueueName checks Azure's queue name rule, which is the container rule.
func ValidateQueueName(name string) error {
	return validateDNSName("queue", name)
}

func validateDNSName(what, name string) error {
	if len(name) < 3 || len(name) > 63 {
		return fmt.Errorf("%s name %q: must be 3 to 63 characters: %w", what, name, ErrInvalid)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(name)-1 && name[i-1] != '-':
		default:
			return fmt.Errorf("%s name %q: only lower-case letters, digits and single hyphens, not at either end: %w", what, name, ErrInvalid)
		}
	}
	return nil
}

// ValidateBlobName checks a blob name: 1–1024 characters, no control
// characters, not ending with a dot or a slash.
func ValidateBlobName(name string) error {
	if name == "" || len(name) > 1024 {
		return fmt.Errorf("blob name %q: must be 1 to 1024 characters: %w", name, ErrInvalid)
	}
	if hasControl(name) {
		return fmt.Errorf("blob name %q: control characters are not allowed: %w", name, ErrInvalid)
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, "\\") {
		return fmt.Errorf("blob name %q: must not end with a dot or a slash: %w", name, ErrInvalid)
	}
	return nil
}

// ValidateKey checks a PartitionKey or RowKey: 1–512 characters (Azure allows
// 1 KiB of UTF-16), none of / \ # ? nor control characters.
func ValidateKey(what, key string) error {
	if key == "" || len(key) > 512 {
		return fmt.Errorf("%s %q: must be 1 to 512 bytes: %w", what, key, ErrInvalid)
	}
	if strings.ContainsAny(key, `/\#?`) || hasControl(key) {
		return fmt.Errorf("%s %q: must not contain / \\ # ? or control characters: %w", what, key, ErrInvalid)
	}
	return nil
}

// ValidateEntity checks an entity's keys, property names and values.
func ValidateEntity(e Entity) error {
	if err := ValidateKey("PartitionKey", e.PartitionKey); err != nil {
		return err
	}
	if err := ValidateKey("RowKey", e.RowKey); err != nil {
		return err
	}
	if len(e.Properties) > 252 {
		return fmt.Errorf("entity has %d properties, at most 252 allowed: %w", len(e.Properties), ErrInvalid)
	}
	size := 0
	for name, v := range e.Properties {
		if err := validatePropertyName(name); err != nil {
			return err
		}
		switch v := v.(type) {
		case string:
			size += len(v)
			if len(v) > MaxPropertySize {
				return fmt.Errorf("property %s is %d bytes, at most %d allowed: %w", name, len(v), MaxPropertySize, ErrTooLarge)
			}
		case []byte:
			size += len(v)
			if len(v) > MaxPropertySize {
				return fmt.Errorf("property %s is %d bytes, at most %d allowed: %w", name, len(v), MaxPropertySize, ErrTooLarge)
			}
		case int64, bool, time.Time:
			size += 8
		default:
			return fmt.Errorf("property %s has type %T; use string, int64, bool, time.Time or []byte: %w", name, v, ErrInvalid)
		}
	}
	if size > 1<<20-4096 {
		return fmt.Errorf("entity is about %d bytes, at most 1 MiB allowed: %w", size, ErrTooLarge)
	}
	return nil
}

func validatePropertyName(name string) error {
	if name == "" || len(name) > 255 {
		return fmt.Errorf("property name %q: must be 1 to 255 characters: %w", name, ErrInvalid)
	}
	switch name {
	case "PartitionKey", "RowKey", "Timestamp", "ETag":
		return fmt.Errorf("property name %q is reserved: %w", name, ErrInvalid)
	}
	for i, r := range name {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r == '_':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return fmt.Errorf("property name %q: only letters, digits and _, not starting with a digit: %w", name, ErrInvalid)
		}
	}
	return nil
}

// ValidateTransaction checks the shape of a transaction: 1..MaxTransactionOps
// ops, all in partition pk, no row twice, each entity valid.
func ValidateTransaction(pk string, ops []TableOp) error {
	if len(ops) == 0 || len(ops) > MaxTransactionOps {
		return fmt.Errorf("transaction has %d operations, 1 to %d allowed: %w", len(ops), MaxTransactionOps, ErrInvalid)
	}
	seen := make(map[string]bool, len(ops))
	for i, op := range ops {
		if op.Entity.PartitionKey != pk {
			return fmt.Errorf("transaction operation %d is in partition %q, not %q: %w", i, op.Entity.PartitionKey, pk, ErrInvalid)
		}
		if seen[op.Entity.RowKey] {
			return fmt.Errorf("transaction names row %q twice: %w", op.Entity.RowKey, ErrInvalid)
		}
		seen[op.Entity.RowKey] = true
		var err error
		switch op.Kind {
		case OpDelete:
			if err = ValidateKey("PartitionKey", op.Entity.PartitionKey); err == nil {
				err = ValidateKey("RowKey", op.Entity.RowKey)
			}
		case OpInsert, OpUpsert, OpUpdate:
			err = ValidateEntity(op.Entity)
		default:
			err = fmt.Errorf("transaction operation %d has unknown kind %d: %w", i, op.Kind, ErrInvalid)
		}
		if err != nil {
			return fmt.Errorf("transaction operation %d: %w", i, err)
		}
	}
	return nil
}

// ValidateDequeue checks Dequeue's arguments.
func ValidateDequeue(max int, visibility time.Duration) error {
	if max < 1 || max > MaxDequeue {
		return fmt.Errorf("dequeue of %d messages: 1 to %d allowed: %w", max, MaxDequeue, ErrInvalid)
	}
	if visibility < time.Second || visibility > MaxVisibility {
		return fmt.Errorf("visibility timeout %s: 1s to %s allowed: %w", visibility, MaxVisibility, ErrInvalid)
	}
	return nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return true
		}
	}
	return false
}
