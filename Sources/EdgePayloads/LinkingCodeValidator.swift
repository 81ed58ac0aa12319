/// ENR-3 local validation of normalised linking-code text.
///
/// Precedence when several problems apply (first match is reported):
/// 1. look-alike characters: fixing them is what the user must do first, and they are not "valid
///    characters", so a count shown before them would mislead;
/// 2. other invalid characters (typed punctuation, accents, control characters);
/// 3. count of valid characters != 10 ("8/10 characters");
/// 4. prefix not in the sponsor table (only meaningful once the code is complete).
/// Nothing here talks to a server (ENR-3: nothing is sent when local validation fails).
public enum LinkingCodeValidator {
    public static func validate(normalized: String, sponsors: SponsorTable) throws(LinkingCodeError) -> LinkingCode {
        let scalars = Array(normalized.unicodeScalars)
        if scalars.contains(where: LinkingCodeAlphabet.isLookAlike) { throw .lookAlike }
        if scalars.contains(where: { !LinkingCodeAlphabet.contains($0) }) { throw .invalidCharacters }
        guard scalars.count == LinkingCodeAlphabet.codeLength else { throw .wrongLength(scalars.count) }
        let prefix = String(String.UnicodeScalarView(scalars.prefix(LinkingCodeAlphabet.prefixLength)))
        guard let sponsor = sponsors.sponsor(forPrefix: prefix) else { throw .unknownPrefix }
        return LinkingCode(checkedValue: normalized, sponsor: sponsor)
    }
}
