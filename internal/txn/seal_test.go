package txn

import (
	"encoding/json"
	"strings"
	"testing"
)

// X13, X14: a record sealed with the key is read only when every field is one this
// version knows: a field renamed by another build is refused, never read as its zero
// value (a renamed "mode" would restore files with mode 0).
func TestRecordWithUnknownFieldRefused(t *testing.T) {
	key := []byte("0123456789abcdef")
	body, err := json.Marshal(&Record{Version: journalVersion})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openRecord(key, "d", Seal(key, "d", body)); err != nil {
		t.Fatalf("a record of this version is refused: %v", err)
	}
	renamed := strings.Replace(string(body), "{", `{"permissions":420,`, 1)
	_, err = openRecord(key, "d", Seal(key, "d", []byte(renamed)))
	if err == nil || !strings.Contains(err.Error(), "cannot be read by this version") {
		t.Errorf("a record with an unknown field: err = %v, want it refused", err)
	}
}
