/// `{"sponsors": [...]}`: a sponsor table inside a larger config object (other keys ignored).
struct SponsorTableDocument: Decodable {
    let sponsors: SponsorTable
}
