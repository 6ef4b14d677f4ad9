"""English function words (and neopronouns) that carry no content for word-overlap evidence.

Shared by the models' text helpers and KnowRef mining filters, so it lives below both.
"""

from __future__ import annotations

STOP = frozenset([
    "a", "an", "the", "of", "to", "in", "on", "at", "for", "with", "and", "or", "but", "by",
    "from", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this",
    "that", "these", "those", "there", "their", "they", "he", "she", "his", "her", "him",
    "them", "we", "you", "i", "me", "my", "our", "your", "ey", "ze", "em", "eir", "zir", "who",
    "whom", "which", "what", "when", "where", "while", "after", "before", "during", "into",
    "over", "under", "about", "than", "then", "so", "such", "not", "no", "nor", "very", "just",
    "also", "too", "only", "once", "each", "other", "both", "all", "any", "some", "has",
    "have", "had", "having", "do", "does", "did", "doing", "will", "would", "can", "could",
    "should", "may", "might", "must",
])
