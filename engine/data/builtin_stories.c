/*
 * builtin_stories.c — builtin:stories, an English story corpus generated
 * from a small story grammar, so the default job needs no download and its
 * samples are readable.
 *
 * Spec: builtin:stories[:key=value,...]
 *   tokens=N       train length in words incl. one <eos> per story, default
 *                  2000000 (generation stops at the first story end past N)
 *   eval_tokens=M  valid and test length each, default 100000
 *   seed=S         default: DataOptions.seed, or 1 when that is 0
 * The text is tokenized with the chosen tokenizer (word by default; char
 * and bpe work too).  The same seed gives the same text; the three splits
 * come from different streams of it (1, 2, 3).
 *
 * Each story is one line: a hero (name, kind, trait, pronouns), a friend, a
 * place, a treasured object and family recur through it; one of six
 * problems (lost object, broken object, storm, hunger, friend stuck,
 * contest) sets off matching reactions, help, a resolution that follows
 * from the problem and an ending with a moral.  Punctuation is split off
 * as tokens ("found a red kite ."), as in PTB and WikiText, so the word
 * vocabulary stays near 900 types.  A model has to track who is who and
 * what was lost across the story, which takes many steps to learn.
 *
 * Template language: words separated by single spaces; "$x" is a slot of
 * the story:
 *   H hero   K kind   T trait   e/E he,she  i/I his,her  m him,her
 *   F friend k kind   t trait   f/G he,she  g his,her
 *   O object C its colour   P place p its adjective   Q second place
 *   Y family member   A activity   D part of day   W weather  w its noun
 *   S,s search spots  R where a lost thing turns up   L shelter   N food
 *   U mending supply  u rescue tool   J where the friend is stuck
 *   c contest   B number   X the feeling the problem causes   Z happy feeling
 *   M moral
 *   a  "a" or "an", chosen by the word that follows.
 *
 * Not for: tokenization (dataset.c does that with the chosen tokenizer).
 */
#include "engine/common.h"
#include "engine/data/data_internal.h"
#include "engine/io/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

static const char *const GIRL_NAMES[] = {
    "Lily", "Mia", "Emma", "Sophie", "Lucy", "Anna", "Ella", "Grace", "Ruby", "Zoe",
    "Chloe", "Maya", "Nora", "Ivy", "Rosa", "Hannah", "Clara", "Alice", "Daisy", "Luna",
    "Sara", "Molly", "Julia", "Amy", "Eva", "Leah", "Nina", "Olive", "Piper", "Tess",
    "Wendy", "Fiona", "Gemma", "Holly", "Iris", "Jane", "Kate", "Lola", "Mila", "Poppy"};
static const char *const BOY_NAMES[] = {
    "Tom", "Ben", "Max", "Sam", "Leo", "Jack", "Finn", "Oscar", "Noah", "Liam",
    "Owen", "Theo", "Hugo", "Eli", "Jake", "Luke", "Milo", "Ned", "Otto", "Paul",
    "Ralph", "Toby", "Victor", "Will", "Adam", "Bruno", "Carl", "Dan", "Felix", "George",
    "Henry", "Ivan", "Jonah", "Kevin", "Louis", "Mark", "Nick", "Peter", "Rex", "Simon"};
static const char *const GIRL_KINDS[] = {"girl", "princess", "queen", "witch", "lady"};
static const char *const BOY_KINDS[] = {"boy", "prince", "king", "wizard", "knight"};
static const char *const ANY_KINDS[] = {
    "farmer", "baker", "painter", "sailor", "fox", "rabbit", "bear", "cat", "dog", "mouse",
    "owl", "duck", "frog", "turtle", "squirrel", "bird", "pig", "lion", "tiger", "elephant",
    "monkey", "dragon", "robot", "puppy", "kitten", "horse", "goat", "hedgehog", "deer",
    "wolf", "bee", "penguin", "giraffe", "badger", "beaver"};
static const char *const TRAITS[] = {
    "brave", "shy", "curious", "kind", "happy", "grumpy", "clever", "silly", "little",
    "quiet", "busy", "lazy", "gentle", "proud", "young", "old", "friendly", "careful",
    "funny", "sleepy", "strong", "small", "tiny", "big", "polite", "helpful",
    "cheerful", "lonely", "smart", "patient"};
static const char *const PLACES[] = {
    "forest", "village", "castle", "garden", "farm", "park", "river", "lake", "beach",
    "mountain", "town", "school", "market", "meadow", "hill", "valley", "jungle", "island",
    "cave", "field", "city", "pond", "zoo", "library", "bakery", "harbor", "desert",
    "orchard", "barn", "playground"};
static const char *const PLACE_ADJS[] = {
    "small", "big", "quiet", "busy", "old", "green", "sunny", "snowy", "dark", "pretty",
    "peaceful", "windy", "warm", "cold", "faraway"};
static const char *const OBJECTS[] = {
    "ball", "kite", "hat", "book", "box", "key", "map", "lamp", "drum", "boat", "bike",
    "doll", "shell", "stone", "ring", "cup", "bell", "blanket", "basket", "scarf", "crown",
    "flute", "balloon", "umbrella", "teddy bear", "pencil", "feather", "coin", "jar",
    "wagon", "sled", "clock", "whistle", "bucket", "necklace", "backpack", "mirror", "flag",
    "lantern", "toy car", "music box", "spoon", "button", "sock", "marble"};
static const char *const COLORS[] = {
    "red", "blue", "green", "yellow", "purple", "pink", "orange", "white", "black", "brown",
    "golden", "silver", "shiny", "old", "new", "tiny", "big", "soft", "striped", "spotted"};
static const char *const FAMILY[] = {"mom", "dad", "grandma", "grandpa", "sister",
                                     "brother", "aunt", "uncle"};
static const char *const ACTIVITIES[] = {
    "play in the garden", "read books", "sing songs", "run fast", "climb trees",
    "draw pictures", "dance in the rain", "look at the stars", "build sand castles",
    "bake cookies", "swim in the lake", "pick flowers", "watch the birds", "fly a kite",
    "play hide and seek", "jump in puddles", "collect stones", "tell stories",
    "ride a bike", "paint the fence", "count the clouds", "play the drum", "water the plants",
    "feed the ducks", "walk by the river"};
static const char *const DAYPARTS[] = {"morning", "afternoon", "evening", "day", "night"};
static const char *const WEATHER[][2] = {
    {"big storm", "storm"}, {"heavy rain", "rain"}, {"cold wind", "wind"},
    {"strong wind", "wind"}, {"snowstorm", "snowstorm"}, {"thick fog", "fog"},
    {"loud thunderstorm", "thunderstorm"}};
static const char *const SPOTS[] = {
    "under the bed", "behind the door", "in the garden", "near the big tree",
    "in the kitchen", "under the table", "by the river", "in the toy box", "on the shelf",
    "behind the house", "in the closet", "under the stairs"};
static const char *const FOUND_SPOTS[] = {
    "under a big leaf", "in a bird nest", "behind a rock", "next to the well",
    "in the tall grass", "on top of the roof", "inside an old boot", "in a pile of leaves",
    "under the bench", "in the mud by the pond"};
static const char *const SHELTERS[] = {"big tree", "old barn", "cave", "little house",
                                       "bridge", "hollow log", "tent"};
static const char *const FOODS[] = {"apples", "berries", "carrots", "bread", "cheese",
                                    "honey", "cookies", "soup", "nuts", "pears", "corn",
                                    "fish", "cake", "pie", "plums"};
static const char *const SUPPLIES[] = {"glue", "tape", "string", "paint", "thread", "nails"};
static const char *const RESCUE_TOOLS[] = {"rope", "ladder", "stick", "branch", "vine"};
static const char *const STUCK_SPOTS[] = {
    "in the mud", "in a deep hole", "up a tall tree", "behind a heavy rock",
    "in a thorny bush", "on a high wall", "in the ice"};
static const char *const CONTESTS[] = {"race", "dance contest", "singing contest",
                                       "baking contest", "kite contest", "swimming race"};
static const char *const NUMBERS[] = {"two", "three", "four", "five", "many"};
/* The feeling a problem causes, by problem (same order as PROBLEMS). */
static const char *const FEELINGS[][4] = {
    {"sad", "upset", "worried", "unhappy"},        /* lost */
    {"sad", "upset", "angry", "unhappy"},          /* broken */
    {"scared", "afraid", "frightened", "worried"}, /* storm */
    {"sad", "grumpy", "weak", "tired"},            /* hungry */
    {"scared", "afraid", "frightened", "cold"},    /* stuck */
    {"worried", "afraid", "nervous", "scared"},    /* contest */
};
static const char *const HAPPY[] = {"happy", "glad", "proud", "excited", "thankful",
                                    "joyful"};
static const char *const MORALS[] = {
    "friends help each other", "it is good to share", "being brave is important",
    "you should never give up", "kindness is the best gift", "it is good to ask for help",
    "patience is important", "hard work pays off", "a true friend is a treasure",
    "it is good to be careful"};

/* ---- templates: each beat is a NULL-terminated list of alternatives */

static const char *const INTRO[] = {
    "Once upon a time , there was $a $T $K named $H .",
    "There once was $a $T $K called $H .",
    "Long ago , in $a $p $P , there lived $a $T $K named $H .",
    "$H was $a $T $K who lived in $a $p $P .",
    "In $a $p $P , there was $a $T $K . $I name was $H .",
    NULL};
static const char *const SETTING[] = {
    "$E lived near the $Q with $i $Y .",
    "Every $D , $H liked to $A .",
    "$H loved to $A with $i $Y .",
    "$E was very $T , and everyone in the $P knew $m .",
    "$I $Y always said that $e was a very $T $K .",
    NULL};
static const char *const OBJECT_INTRO[] = {
    "One $D , $H found $a $C $O $R .",
    "$H had $a $C $O . It was $i favorite thing in the whole world .",
    "$I $Y gave $m $a $C $O for $i birthday .",
    "At the market , $H saw $a $C $O and bought it with $i coins .",
    NULL};
static const char *const FRIEND_INTRO[] = {
    "$H had a good friend named $F , $a $t $k .",
    "One day , $H met $a $t $k named $F at the $Q .",
    "$F , $a $t $k , lived next door to $H .",
    "$H and $F , $a $t $k , played together every $D .",
    NULL};

static const char *const LOST_PROBLEM[] = {
    "But one $D , the $C $O was gone !",
    "Then one $D , $H could not find $i $C $O .",
    NULL};
static const char *const LOST_SEARCH[] = {
    "$E looked $S and $s , but the $O was not there .",
    "$H searched $S . Then $e searched $s . The $O was nowhere .",
    NULL};
static const char *const LOST_FEEL[] = {
    "$H felt very $X .",
    "$H was so $X that $e started to cry .",
    NULL};
static const char *const LOST_HELP[] = {
    "$F saw $H and asked , \" Why are you $X ? \" $H said , \" I lost my $C $O . \" \" Do not worry , \" said $F . \" I will help you find it . \"",
    "$F came by and said , \" I can help you look for your $O , $H . \"",
    NULL};
static const char *const LOST_RESOLVE[] = {
    "Together , $H and $F looked everywhere . At last , $F found the $O $R .",
    "They looked and looked . Then $H saw something $C $R . It was the $O !",
    NULL};
static const char *const LOST_AFTER[] = {
    "$H was $Z because $i $O was back .",
    "$H hugged $F and said , \" Thank you , $F ! \"",
    NULL};

static const char *const BROKEN_PROBLEM[] = {
    "One $D , $H was playing with the $O , but it fell and broke into $B pieces .",
    "Then a big dog ran by and knocked over the $C $O . It broke into $B pieces .",
    NULL};
static const char *const BROKEN_FEEL[] = {
    "$H was very $X because the $O was $i favorite .",
    "$H sat down and felt $X .",
    NULL};
static const char *const BROKEN_HELP[] = {
    "$F came to see what happened . \" I can help , \" said $F . \" I have some $U . \"",
    "$F said , \" Do not be $X , $H . My $Y has some $U . We can fix it . \"",
    NULL};
static const char *const BROKEN_RESOLVE[] = {
    "They worked together and fixed the $C $O with the $U .",
    "$H and $F put the pieces back together with $U , one by one .",
    NULL};
static const char *const BROKEN_AFTER[] = {
    "Soon the $O looked almost like new , and $H was $Z .",
    "The $O was not perfect , but $H was $Z to have it back .",
    NULL};

static const char *const STORM_PROBLEM[] = {
    "One $D , $a $W came to the $P .",
    "Suddenly , the sky grew dark and $a $W started .",
    NULL};
static const char *const STORM_FEEL[] = {
    "$H was $X , and $e held $i $C $O tight .",
    "$H did not know where to go , and $e felt $X .",
    NULL};
static const char *const STORM_HELP[] = {
    "$F shouted , \" Come with me ! I know a safe place . \"",
    "Then $F ran up and said , \" Follow me , $H ! \"",
    NULL};
static const char *const STORM_RESOLVE[] = {
    "They ran to $a $L and waited there until the $w was over .",
    "$H and $F hid in $a $L and told stories until the $w stopped .",
    NULL};
static const char *const STORM_AFTER[] = {
    "When the sun came out , the $P was quiet again , and $H was $Z that $e had a friend like $F .",
    "After the $w , they walked home together , and $H was $Z .",
    NULL};

static const char *const HUNGRY_PROBLEM[] = {
    "One $D , $H was very hungry , but there was no $N at home .",
    "One $D , $H wanted to eat some $N , but the $N was all gone .",
    NULL};
static const char *const HUNGRY_FEEL[] = {
    "$I tummy made a loud noise , and $e felt $X .",
    "$H sat by the door and felt $X .",
    NULL};
static const char *const HUNGRY_HELP[] = {
    "$F said , \" I know where to find some $N . Follow me ! \"",
    "$F saw $H and said , \" Let us go to the $Q . There is lots of $N there . \"",
    NULL};
static const char *const HUNGRY_RESOLVE[] = {
    "They walked to the $Q and found lots of $N .",
    "At the $Q , $H and $F filled a basket with $N .",
    NULL};
static const char *const HUNGRY_AFTER[] = {
    "$H shared the $N with $F and $i $Y , and everyone was $Z .",
    "They ate the $N together , and $H was $Z .",
    NULL};

static const char *const STUCK_PROBLEM[] = {
    "One $D , $F got stuck $J and could not get out .",
    "One $D , $H heard a cry . $F was stuck $J !",
    NULL};
static const char *const STUCK_FEEL[] = {
    "$F was $X and called for help .",
    "\" Help me , $H ! \" cried $F . $G was very $X .",
    NULL};
static const char *const STUCK_HELP[] = {
    "$H ran to help . $E brought $a long $u .",
    "$H did not give up . $E found $a long $u near the $Q .",
    NULL};
static const char *const STUCK_RESOLVE[] = {
    "$H used the $u to pull $F out .",
    "$H held the $u tight , and $F climbed out .",
    NULL};
static const char *const STUCK_AFTER[] = {
    "\" You saved me , \" said $F . \" Thank you , $H ! \"",
    "$F was $Z , and $f gave $H $g best $N .",
    NULL};

static const char *const CONTEST_PROBLEM[] = {
    "One $D , there was a big $c in the $P , and $H wanted to win .",
    "The $P was having a $c , and $H wanted to be in it .",
    NULL};
static const char *const CONTEST_FEEL[] = {
    "But $H was $X that $e would not be good enough .",
    "$H felt $X , because the others were very good .",
    NULL};
static const char *const CONTEST_HELP[] = {
    "$F said , \" If you practice every day , you can do it . \"",
    "$F said , \" I will help you practice , $H . \"",
    NULL};
static const char *const CONTEST_RESOLVE[] = {
    "So $H practiced every $D with $F . On the day of the $c , $H did $i best and won first prize !",
    "So $H practiced every $D with $F . $E did not win the $c , but $e had lots of fun .",
    NULL};
static const char *const CONTEST_AFTER[] = {
    "$H gave $F a big hug .",
    "$H thanked $F for all the help .",
    NULL};

static const char *const *const PROBLEMS[][5] = {
    {LOST_PROBLEM, LOST_SEARCH, LOST_FEEL, LOST_HELP, LOST_RESOLVE},
    {BROKEN_PROBLEM, BROKEN_FEEL, BROKEN_HELP, BROKEN_RESOLVE, BROKEN_AFTER},
    {STORM_PROBLEM, STORM_FEEL, STORM_HELP, STORM_RESOLVE, STORM_AFTER},
    {HUNGRY_PROBLEM, HUNGRY_FEEL, HUNGRY_HELP, HUNGRY_RESOLVE, HUNGRY_AFTER},
    {STUCK_PROBLEM, STUCK_FEEL, STUCK_HELP, STUCK_RESOLVE, STUCK_AFTER},
    {CONTEST_PROBLEM, CONTEST_FEEL, CONTEST_HELP, CONTEST_RESOLVE, CONTEST_AFTER},
};

static const char *const ENDINGS[] = {
    "From that day on , $H and $F were best friends .",
    "$H learned that $M .",
    "That night , $H told $i $Y the whole story .",
    "And $H always kept $i $C $O safe after that .",
    NULL};

typedef struct {
    const char *slot[128];
} Story;

static const char *pick(DataRng *r, const char *const *list, uint32_t n)
{
    return list[data_rng_below(r, n)];
}

static const char *pick_template(DataRng *r, const char *const *list)
{
    uint32_t n = 0;
    while (list[n]) n++;
    return list[data_rng_below(r, n)];
}

static void cast_story(Story *s, DataRng *r)
{
    memset(s, 0, sizeof *s);
    static const char *const HE[] = {"he", "He", "his", "His", "him"};
    static const char *const SHE[] = {"she", "She", "her", "Her", "her"};
    int hero_girl = (int)data_rng_below(r, 2);
    const char *const *hp = hero_girl ? SHE : HE;
    s->slot['H'] = hero_girl ? pick(r, GIRL_NAMES, COUNT(GIRL_NAMES)) : pick(r, BOY_NAMES, COUNT(BOY_NAMES));
    if (data_rng_below(r, 3) == 0)
        s->slot['K'] = hero_girl ? pick(r, GIRL_KINDS, COUNT(GIRL_KINDS)) : pick(r, BOY_KINDS, COUNT(BOY_KINDS));
    else
        s->slot['K'] = pick(r, ANY_KINDS, COUNT(ANY_KINDS));
    s->slot['T'] = pick(r, TRAITS, COUNT(TRAITS));
    s->slot['e'] = hp[0];
    s->slot['E'] = hp[1];
    s->slot['i'] = hp[2];
    s->slot['I'] = hp[3];
    s->slot['m'] = hp[4];

    int friend_girl = (int)data_rng_below(r, 2);
    const char *const *fp = friend_girl ? SHE : HE;
    do {
        s->slot['F'] = friend_girl ? pick(r, GIRL_NAMES, COUNT(GIRL_NAMES)) : pick(r, BOY_NAMES, COUNT(BOY_NAMES));
    } while (s->slot['F'] == s->slot['H']);
    s->slot['k'] = pick(r, ANY_KINDS, COUNT(ANY_KINDS));
    s->slot['t'] = pick(r, TRAITS, COUNT(TRAITS));
    s->slot['f'] = fp[0];
    s->slot['G'] = fp[1];
    s->slot['g'] = fp[2];

    s->slot['O'] = pick(r, OBJECTS, COUNT(OBJECTS));
    s->slot['C'] = pick(r, COLORS, COUNT(COLORS));
    s->slot['P'] = pick(r, PLACES, COUNT(PLACES));
    do s->slot['Q'] = pick(r, PLACES, COUNT(PLACES));
    while (s->slot['Q'] == s->slot['P']);
    s->slot['p'] = pick(r, PLACE_ADJS, COUNT(PLACE_ADJS));
    s->slot['Y'] = pick(r, FAMILY, COUNT(FAMILY));
    s->slot['A'] = pick(r, ACTIVITIES, COUNT(ACTIVITIES));
    s->slot['D'] = pick(r, DAYPARTS, COUNT(DAYPARTS));
    uint32_t w = data_rng_below(r, COUNT(WEATHER));
    s->slot['W'] = WEATHER[w][0];
    s->slot['w'] = WEATHER[w][1];
    s->slot['S'] = pick(r, SPOTS, COUNT(SPOTS));
    do s->slot['s'] = pick(r, SPOTS, COUNT(SPOTS));
    while (s->slot['s'] == s->slot['S']);
    s->slot['R'] = pick(r, FOUND_SPOTS, COUNT(FOUND_SPOTS));
    s->slot['L'] = pick(r, SHELTERS, COUNT(SHELTERS));
    s->slot['N'] = pick(r, FOODS, COUNT(FOODS));
    s->slot['U'] = pick(r, SUPPLIES, COUNT(SUPPLIES));
    s->slot['u'] = pick(r, RESCUE_TOOLS, COUNT(RESCUE_TOOLS));
    s->slot['J'] = pick(r, STUCK_SPOTS, COUNT(STUCK_SPOTS));
    s->slot['c'] = pick(r, CONTESTS, COUNT(CONTESTS));
    s->slot['B'] = pick(r, NUMBERS, COUNT(NUMBERS));
    s->slot['Z'] = pick(r, HAPPY, COUNT(HAPPY));
    s->slot['M'] = pick(r, MORALS, COUNT(MORALS));
}

/* Appends one expanded template followed by a space. */
static void expand(StrBuf *out, const Story *s, const char *tmpl)
{
    int article = 0;
    const char *p = tmpl;
    while (*p) {
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *word = p;
        if (len == 2 && p[0] == '$') {
            if (p[1] == 'a') {
                article = 1;
                word = NULL;
            } else {
                word = s->slot[(unsigned char)p[1]];
                len = strlen(word);
            }
        }
        if (word) {
            if (article) {
                int vowel = strchr("aeiou", word[0]) != NULL;
                sb_append(out, vowel ? "an " : "a ");
                article = 0;
            }
            sb_append_len(out, word, len);
            sb_append_len(out, " ", 1);
        }
        p = end ? end + 1 : p + strlen(p);
    }
}

/* Appends one story as one line; *words gets its word count plus 1 (<eos>). */
static int write_story(StrBuf *out, DataRng *r, size_t *words)
{
    Story s;
    cast_story(&s, r);
    size_t start = out->len;
    expand(out, &s, pick_template(r, INTRO));
    uint32_t n_setting = 1 + data_rng_below(r, 2);
    uint32_t first = data_rng_below(r, 5);
    for (uint32_t k = 0; k < n_setting; k++)
        expand(out, &s, SETTING[(first + 2 * k) % 5]);
    expand(out, &s, pick_template(r, OBJECT_INTRO));
    expand(out, &s, pick_template(r, FRIEND_INTRO));
    uint32_t problem = data_rng_below(r, COUNT(PROBLEMS));
    s.slot['X'] = pick(r, FEELINGS[problem], COUNT(FEELINGS[problem]));
    for (int beat = 0; beat < 5; beat++)
        expand(out, &s, pick_template(r, PROBLEMS[problem][beat]));
    if (problem == 0) expand(out, &s, pick_template(r, LOST_AFTER));
    uint32_t ending = data_rng_below(r, 4);
    expand(out, &s, ENDINGS[ending]);
    if (ending != 1 && data_rng_below(r, 2) == 0) expand(out, &s, ENDINGS[1]);
    if (!sb_ok(out)) return -1;
    out->data[out->len - 1] = '\n';   /* the last space becomes the line end */
    size_t n = 1;
    for (size_t k = start; k < out->len; k++) n += out->data[k] == ' ';
    *words = n + 1;
    return 0;
}

static int generate_split(DataRng *r, size_t target, char **text, size_t *len)
{
    StrBuf out;
    sb_init(&out);
    if (sb_reserve(&out, target * 6 + 1024) != 0) return -1;
    size_t words = 0;
    while (words < target) {
        size_t n = 0;
        if (write_story(&out, r, &n) != 0) {
            sb_free(&out);
            return -1;
        }
        words += n;
    }
    *len = out.len;
    *text = sb_take(&out);
    return *text ? 0 : -1;
}

int builtin_stories(const char *opts, uint64_t seed, BuiltinCorpus *out, char *err)
{
    enum { O_TOKENS, O_EVAL, O_SEED, O_COUNT };
    BuiltinOption o[O_COUNT] = {
        [O_TOKENS] = {"tokens", 100, 1e9, 1, 2000000, 0},
        [O_EVAL] = {"eval_tokens", 100, 1e9, 1, 100000, 0},
        [O_SEED] = {"seed", 0, 9007199254740991.0, 1, 1, 0},
    };
    memset(out, 0, sizeof *out);
    if (builtin_parse_options("stories", opts, o, O_COUNT, err) != 0) return -1;
    uint64_t s = o[O_SEED].given ? (uint64_t)o[O_SEED].value : (seed ? seed : 1);
    size_t targets[SPLIT_COUNT] = {(size_t)o[O_TOKENS].value, (size_t)o[O_EVAL].value,
                                   (size_t)o[O_EVAL].value};
    for (int split = 0; split < SPLIT_COUNT; split++) {
        DataRng rng;
        data_rng_seed(&rng, s, (uint64_t)split + 1);
        if (generate_split(&rng, targets[split], &out->text[split], &out->text_len[split]) != 0) {
            builtin_free(out);
            return err_set(err, "builtin:stories: out of memory");
        }
    }
    out->vocab = 0;
    out->loss_floor = 0;
    snprintf(out->canonical, sizeof out->canonical,
             "builtin:stories:tokens=%zu,eval_tokens=%zu,seed=%llu,grammar=1", targets[0],
             targets[1], (unsigned long long)s);
    return 0;
}
