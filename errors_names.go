package applypatch

import "strconv"

// fileReasonNames, conflictReasonNames and matchReasonNames are the names the reasons print
// as: the constants' own names, so a log line can be searched for in the documentation.
var (
	fileReasonNames = map[FileReason]string{
		FileMissing: "FileMissing", FileExists: "FileExists", FileIsDir: "FileIsDir",
		FileBinary: "FileBinary", FileUndecodable: "FileUndecodable",
		FileUnreadable: "FileUnreadable", FileParentNotDir: "FileParentNotDir",
		FileLinked: "FileLinked", FileForbidden: "FileForbidden",
		FileUnauthorized: "FileUnauthorized", FileAliased: "FileAliased",
		FileRedirected: "FileRedirected", FileTooLarge: "FileTooLarge",
	}
	conflictReasonNames = map[ConflictReason]string{
		ConflictChanged: "ConflictChanged", ConflictNotOwned: "ConflictNotOwned",
		ConflictUnsaved: "ConflictUnsaved", ConflictOwner: "ConflictOwner",
		ConflictLocked: "ConflictLocked", ConflictNotInPatch: "ConflictNotInPatch",
	}
	matchReasonNames = map[MatchReason]string{
		MatchNotFound: "MatchNotFound", MatchAmbiguous: "MatchAmbiguous", MatchOverlap: "MatchOverlap",
	}
)

// reasonName is names[r], or the type's name with the number for a value it does not name.
func reasonName[R ~int](names map[R]string, typ string, r R) string {
	if s, ok := names[r]; ok {
		return s
	}
	return typ + "(" + strconv.Itoa(int(r)) + ")"
}

// String returns the constant's name, such as "FileMissing".
func (r FileReason) String() string { return reasonName(fileReasonNames, "FileReason", r) }

// String returns the constant's name, such as "ConflictChanged".
func (r ConflictReason) String() string { return reasonName(conflictReasonNames, "ConflictReason", r) }

// String returns the constant's name, such as "MatchAmbiguous".
func (r MatchReason) String() string { return reasonName(matchReasonNames, "MatchReason", r) }
