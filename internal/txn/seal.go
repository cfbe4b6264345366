package txn

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/applypatch/applypatch/internal/fence"
)

// A journal directory is named fence.JournalPrefix, a dash, the commit's id, a dash and a tag:
// the start of the MAC of the id under the journal key. A directory planted under a name
// of that shape cannot carry a tag that verifies, and cannot take the name of a commit
// to come either, since each commit draws a fresh id.
const (
	journalIDLen  = 12 // hex digits of newTempID
	journalTagLen = 16 // hex digits of the name's tag
)

// journalMagic starts every record this version writes; the record's length in bytes,
// its MAC and the record follow, each on a line of its own.
const journalMagic = "applypatch journal 2\n"

// journalLimit bounds the record recovery reads: far above what any payload within the
// limits can plan, far below what would cost a start its memory.
const journalLimit = 64 << 20

// errNotSealed is the error of a record whose MAC does not verify under the key;
// errCutShort of one shorter than it says, as a commit killed while writing it leaves it.
var (
	errNotSealed = errors.New("its record is not sealed with this user's journal key")
	errCutShort  = errors.New("its record was cut short")
)

// JournalName is the directory name of the journal of the commit with the given id.
func JournalName(key []byte, id string) string {
	return fence.JournalPrefix + "-" + id + "-" + nameTag(key, id)
}

// nameTag is the tag of a journal directory's name.
func nameTag(key []byte, id string) string {
	return hex.EncodeToString(mac(key, "name", []byte(id)))[:journalTagLen]
}

// journalID returns the commit id a journal directory's name carries, and whether the
// name's tag verifies under key.
func journalID(key []byte, name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, fence.JournalPrefix+"-")
	if !ok || len(rest) != journalIDLen+1+journalTagLen || rest[journalIDLen] != '-' {
		return "", false
	}
	id, tag := rest[:journalIDLen], rest[journalIDLen+1:]
	if !isLowerHex(id) || !hmac.Equal([]byte(tag), []byte(nameTag(key, id))) {
		return "", false
	}
	return id, true
}

func isLowerHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// mac is HMAC-SHA-256 under key of a purpose and data, so that a MAC made for one use
// never verifies for another.
func mac(key []byte, purpose string, data ...[]byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	for _, d := range data {
		h.Write(d)
	}
	return h.Sum(nil)
}

// sealRecord encodes a record for the journal directory dir (its base name), with its
// MAC.
func sealRecord(key []byte, dir string, rec *Record) ([]byte, error) {
	body, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	return Seal(key, dir, body), nil
}

// Seal seals the encoded record body for the journal directory dir (its base name):
// the magic line, the body's length, its MAC, then the body, each on a line of its own.
func Seal(key []byte, dir string, body []byte) []byte {
	sum := hex.EncodeToString(mac(key, "record", []byte(dir), []byte{0}, body))
	return []byte(journalMagic + strconv.Itoa(len(body)) + "\n" + sum + "\n" + string(body))
}

// openRecord decodes a sealed record of the journal directory dir, verifying its MAC
// before it reads a byte of the record itself.
func openRecord(key []byte, dir string, data []byte) (*Record, error) {
	rest, ok := strings.CutPrefix(string(data), journalMagic)
	if !ok {
		if strings.HasPrefix(journalMagic, string(data)) {
			return nil, errCutShort
		}
		return nil, errNotSealed
	}
	size, rest, ok := strings.Cut(rest, "\n")
	n, err := strconv.Atoi(size)
	if !ok || err != nil || n < 0 || n > journalLimit {
		return nil, errNotSealed
	}
	sum, body, ok := strings.Cut(rest, "\n")
	switch {
	case !ok || len(body) < n:
		return nil, errCutShort
	case len(body) > n:
		return nil, errNotSealed
	}
	got, err := hex.DecodeString(sum)
	if err != nil || !hmac.Equal(got, mac(key, "record", []byte(dir), []byte{0}, []byte(body))) {
		return nil, errNotSealed
	}
	// A field this version does not know is refused, not skipped: a record whose field was
	// renamed would otherwise restore with that field's zero value (a mode of 0).
	var rec Record
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("its record cannot be read by this version: %w", err)
	}
	if rec.Version != journalVersion {
		return nil, errors.New("its record has a version this version cannot read")
	}
	return &rec, nil
}
