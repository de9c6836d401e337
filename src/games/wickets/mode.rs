//! How a scoring attempt is decided: the `[Decision]` tag's modes. The bottom of the
//! module's imports: the board, the cards and the turns all read it, it reads none of them.

use crate::games::SetupError;

/// How a throw into the opposing wicket is decided: the `[Decision]` tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecisionMode {
    /// Success unless the Defender sees its wicket; then three sacrifices buy it.
    Deterministic,
    /// As Deterministic, with two sacrifices.
    DeterministicII,
    /// A die: 3-6 succeeds, 5-6 when the Defender sees its wicket.
    Dice,
    /// As Dice, with one second roll after a failure, bought by one sacrifice.
    DiceII,
    /// Each side plays a card, the opponent following suit; the higher card wins, the
    /// opponent's with a 2.5 bonus when its Defender sees its wicket; ties are replayed.
    Cards,
    /// As Cards, with one second try after a failure.
    CardsII,
}

impl DecisionMode {
    /// Every mode, in the order of the rules page.
    pub const ALL: [DecisionMode; 6] = [
        DecisionMode::Deterministic,
        DecisionMode::DeterministicII,
        DecisionMode::Dice,
        DecisionMode::DiceII,
        DecisionMode::Cards,
        DecisionMode::CardsII,
    ];

    /// The `[Decision]` tag value.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            DecisionMode::Deterministic => "Deterministic",
            DecisionMode::DeterministicII => "Deterministic II",
            DecisionMode::Dice => "Dice",
            DecisionMode::DiceII => "Dice II",
            DecisionMode::Cards => "Cards",
            DecisionMode::CardsII => "Cards II",
        }
    }

    /// The short form in the position string.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            DecisionMode::Deterministic => "det",
            DecisionMode::DeterministicII => "det2",
            DecisionMode::Dice => "dice",
            DecisionMode::DiceII => "dice2",
            DecisionMode::Cards => "cards",
            DecisionMode::CardsII => "cards2",
        }
    }

    /// Reads a tag value or a position-string code, case-insensitively.
    pub fn from_name(text: &str) -> Result<DecisionMode, SetupError> {
        let wanted: String = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-' && *c != '_')
            .collect::<String>()
            .to_ascii_lowercase();
        DecisionMode::ALL
            .into_iter()
            .find(|mode| {
                let name: String = mode.name().replace(' ', "").to_ascii_lowercase();
                name == wanted || mode.code() == wanted
            })
            .ok_or_else(|| {
                SetupError::new(format!(
                    "unknown decision mode \"{text}\" (expected Deterministic, Deterministic II, \
                     Dice, Dice II, Cards or Cards II)"
                ))
            })
    }

    /// Pieces a deterministic mode sacrifices when the Defender sees its wicket.
    pub(super) const fn sacrifices(self) -> usize {
        match self {
            DecisionMode::Deterministic => 3,
            DecisionMode::DeterministicII => 2,
            _ => 0,
        }
    }

    pub(super) const fn is_dice(self) -> bool {
        matches!(self, DecisionMode::Dice | DecisionMode::DiceII)
    }

    /// Whether the mode decides by cards.
    #[must_use]
    pub const fn is_cards(self) -> bool {
        matches!(self, DecisionMode::Cards | DecisionMode::CardsII)
    }
}
