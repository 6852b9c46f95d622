package io.shotstash.publicdata.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.publicdata.write.BranchFence.Repair;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link BranchFence#decide}, the rule that puts the branch and the recorded head in step, row by row. */
class BranchFenceRuleTest {
  static final ObjectId A = ObjectId.fromString("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
  static final ObjectId B = ObjectId.fromString("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");

  @ParameterizedTest(name = "row {0}, ref {1}, row in repo {2}, ref on top {3}: {4}")
  @CsvSource({
      // no row yet: it starts at the branch (or there is nothing to record)
      "-, -, false, false, InStep",
      "-, A, false, false, Adopt A",
      // the branch at the row
      "A, A, true, false, InStep",
      // a commit pushed by hand on top of the row's: the row follows
      "A, B, true, true, Adopt B",
      // behind the row (a writer stopped before moving it), or off it (a writer woke from a freeze)
      "A, B, true, false, Restore B>A",
      "A, -, true, false, Restore >A",
      // the row names a commit the repository does not have: nobody guesses
      "A, B, false, false, Broken",
      "A, -, false, false, Broken",
  })
  void decides(String row, String ref, boolean rowInRepo, boolean refOnTop, String expected) {
    Repair repair = BranchFence.decide(id(row), id(ref), rowInRepo, refOnTop);
    assertThat(describe(repair)).isEqualTo(expected);
  }

  static ObjectId id(String name) {
    return switch (name) {
      case "A" -> A;
      case "B" -> B;
      default -> null;
    };
  }

  static String letter(ObjectId id) {
    return id == null ? "" : id.equals(A) ? "A" : "B";
  }

  static String describe(Repair repair) {
    if (repair instanceof Repair.Adopt a) {
      return "Adopt " + letter(a.ref());
    }
    if (repair instanceof Repair.Restore r) {
      return "Restore " + letter(r.from()) + ">" + letter(r.to());
    }
    return repair.getClass().getSimpleName();
  }
}
